import SessionKit

/// A credential this library does not model (a credit card, an SSH key, a type from a later
/// version), or a known type it must not use (a TOTP with an unknown algorithm), kept whole.
///
/// Keeping it lets an import go on with the rest; its JSON is a `Secret`, since any credential
/// may hold secrets.
public struct CXFOpaqueCredential: Sendable, Hashable {
    /// The credential's `type`, such as `credit-card`.
    public var type: String
    /// The whole credential object as compact JSON text.
    public var json: Secret

    /// Creates an opaque credential.
    public init(type: String, json: Secret) {
        self.type = type
        self.json = json
    }
}
