public import SessionKitCore

/// A credential of a type this library does not know (one from a later version of the format),
/// or a known type it must not use (a TOTP with an unknown algorithm), kept whole.
///
/// Keeping it lets an import go on with the rest; its JSON is a `Secret`, since any credential
/// may hold secrets.
public struct CXFOpaqueCredential: Sendable, Hashable {
    /// The credential's `type`.
    public var type: String
    /// The whole credential object as compact JSON text.
    public var json: Secret

    /// Creates an opaque credential.
    public init(type: String, json: Secret) {
        self.type = type
        self.json = json
    }
}
