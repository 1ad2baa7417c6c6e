/// One credential of an item, by its CXF `type`: each of the format's 17 types typed, a type
/// from a later version kept opaque, and a credential that breaks the format's rules kept whole
/// with the reason.
@nonexhaustive
public enum CXFCredential: Sendable, Hashable {
    /// `address`: a postal address.
    case address(CXFAddressCredential)
    /// `api-key`: an API key.
    case apiKey(CXFAPIKeyCredential)
    /// `basic-auth`: a username and password.
    case basicAuth(CXFBasicAuthCredential)
    /// `credit-card`: a payment card.
    case creditCard(CXFCreditCardCredential)
    /// `custom-fields`: fields the format has no type for.
    case customFields(CXFCustomFieldsCredential)
    /// `drivers-license`: a driver's licence.
    case driversLicense(CXFDriversLicenseCredential)
    /// `file`: an attached file.
    case file(CXFFileCredential)
    /// `generated-password`: a generated password not tied to a login yet.
    case generatedPassword(CXFGeneratedPasswordCredential)
    /// `identity-document`: an identity card or similar.
    case identityDocument(CXFIdentityDocumentCredential)
    /// `item-reference`: a link to another item.
    case itemReference(CXFItemReferenceCredential)
    /// `note`: a free-text note.
    case note(CXFNoteCredential)
    /// `passkey`: a WebAuthn passkey.
    case passkey(CXFPasskeyCredential)
    /// `passport`: a passport.
    case passport(CXFPassportCredential)
    /// `person-name`: a person's name in parts.
    case personName(CXFPersonNameCredential)
    /// `ssh-key`: an SSH key pair.
    case sshKey(CXFSSHKeyCredential)
    /// `totp`: a one-time password generator.
    case totp(CXFTOTPCredential)
    /// `wifi`: a Wi-Fi network.
    case wifi(CXFWiFiCredential)
    /// A type this library does not know, or a TOTP with an unknown algorithm, kept whole.
    case opaque(CXFOpaqueCredential)
    /// A credential of a known type that breaks the format's rules, kept whole with the reason.
    case undecodable(CXFUndecoded)

    /// The type names this library decodes, in the format's order.
    public static let knownTypes: [String] = [
        "address", "api-key", "basic-auth", "credit-card", "custom-fields", "drivers-license", "file", "generated-password",
        "identity-document", "item-reference", "note", "passkey", "passport", "person-name", "ssh-key", "totp", "wifi",
    ]

    /// The CXF type name (for an undecodable credential, the one it gave, or an empty string).
    public var type: String {
        switch self {
        case .address: "address"
        case .apiKey: "api-key"
        case .basicAuth: "basic-auth"
        case .creditCard: "credit-card"
        case .customFields: "custom-fields"
        case .driversLicense: "drivers-license"
        case .file: "file"
        case .generatedPassword: "generated-password"
        case .identityDocument: "identity-document"
        case .itemReference: "item-reference"
        case .note: "note"
        case .passkey: "passkey"
        case .passport: "passport"
        case .personName: "person-name"
        case .sshKey: "ssh-key"
        case .totp: "totp"
        case .wifi: "wifi"
        case .opaque(let opaque): opaque.type
        case .undecodable(let undecoded): undecoded.type ?? ""
        }
    }
}
