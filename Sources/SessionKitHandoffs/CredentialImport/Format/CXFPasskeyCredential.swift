import SessionKit

/// A WebAuthn passkey (CXF `passkey`).
///
/// The private key is a `Secret`; an importer must set the signature counter to zero.
public struct CXFPasskeyCredential: Sendable, Hashable {
    /// The WebAuthn credential id (base64url).
    public var credentialID: String
    /// The relying party id the passkey belongs to.
    public var relyingPartyID: String
    /// The account's name at the relying party.
    public var username: String
    /// The account's display name.
    public var userDisplayName: String
    /// The WebAuthn user handle (base64url).
    public var userHandle: String
    /// The private key: PKCS#8 DER, base64url-encoded.
    public var key: Secret
    /// The `fido2Extensions` object as JSON text, when present (it can hold secrets too).
    public var fido2Extensions: Secret?

    /// Creates a passkey.
    public init(
        credentialID: String, relyingPartyID: String, username: String, userDisplayName: String, userHandle: String, key: Secret,
        fido2Extensions: Secret? = nil
    ) {
        self.credentialID = credentialID
        self.relyingPartyID = relyingPartyID
        self.username = username
        self.userDisplayName = userDisplayName
        self.userHandle = userHandle
        self.key = key
        self.fido2Extensions = fido2Extensions
    }
}
