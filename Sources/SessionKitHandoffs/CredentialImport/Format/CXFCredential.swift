/// One credential of an item, by its CXF `type`.
public enum CXFCredential: Sendable, Hashable {
    /// `basic-auth`: a username and password.
    case basicAuth(CXFBasicAuthCredential)
    /// `passkey`: a WebAuthn passkey.
    case passkey(CXFPasskeyCredential)
    /// `totp`: a one-time password generator.
    case totp(CXFTOTPCredential)
    /// `note`: a free-text note.
    case note(CXFNoteCredential)
    /// Any other type, kept whole.
    case opaque(CXFOpaqueCredential)

    /// The CXF type name.
    public var type: String {
        switch self {
        case .basicAuth: "basic-auth"
        case .passkey: "passkey"
        case .totp: "totp"
        case .note: "note"
        case .opaque(let opaque): opaque.type
        }
    }
}
