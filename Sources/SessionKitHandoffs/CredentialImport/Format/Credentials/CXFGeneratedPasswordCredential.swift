public import SessionKitCore

/// A password the exporter generated and kept, not yet tied to a login (CXF `generated-password`).
public struct CXFGeneratedPasswordCredential: Sendable, Hashable {
    /// The password.
    public var password: Secret

    /// Creates a credential.
    public init(password: Secret) {
        self.password = password
    }
}
