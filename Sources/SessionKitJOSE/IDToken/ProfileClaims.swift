#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The standard claims about the person (OpenID Connect Core §5.1) that an id_token or a
/// UserInfo response may carry, typed as the specification types them.
///
/// Every member is optional: a provider releases only what the granted scopes allow (`profile`,
/// `email`). A member present with another JSON type than §5.1 gives it makes the whole token or
/// response malformed rather than being dropped; `null` counts as absent (§5.3.2 discourages it
/// but does not forbid it). Standard claims not listed here (`nickname`,
/// `address`, `phone_number`, …) are among the additional claims, read with `custom(_:as:)`.
public struct ProfileClaims: Sendable, Hashable {
    /// `name`: the full name, in displayable form.
    public var name: String?
    /// `given_name`: given or first name(s).
    public var givenName: String?
    /// `family_name`: surname(s) or last name(s).
    public var familyName: String?
    /// `preferred_username`: the shorthand the person wants to be called by. Not unique and not
    /// stable: never key data by it (key by the subject).
    public var preferredUsername: String?
    /// `email`: the preferred e-mail address. Not unique and not stable either.
    public var email: String?
    /// `email_verified`: whether the provider verified that the person controls ``email``.
    public var emailVerified: Bool?
    /// `picture`: the URL of a profile picture, as the provider wrote it.
    public var picture: String?
    /// `locale`: a BCP 47 language tag such as `en-US`, as the provider wrote it.
    public var locale: String?
    /// `updated_at`: when the person's information was last updated.
    public var updatedAt: Date?

    /// Claims from their values; every one is absent unless given.
    public init(
        name: String? = nil, givenName: String? = nil, familyName: String? = nil, preferredUsername: String? = nil,
        email: String? = nil, emailVerified: Bool? = nil, picture: String? = nil, locale: String? = nil,
        updatedAt: Date? = nil
    ) {
        self.name = name
        self.givenName = givenName
        self.familyName = familyName
        self.preferredUsername = preferredUsername
        self.email = email
        self.emailVerified = emailVerified
        self.picture = picture
        self.locale = locale
        self.updatedAt = updatedAt
    }

    /// The claim names this type reads.
    static let names: Set<String> = [
        "name", "given_name", "family_name", "preferred_username", "email", "email_verified", "picture", "locale",
        "updated_at",
    ]

    /// Reads the member `name` when it is one of these claims; false (nothing consumed) otherwise.
    ///
    /// One switch over the name's FNV-1a hash, then a byte compare, as for the registered claims
    /// (the literals are checked against the names by a test).
    mutating func read(_ name: JSONName, from parser: inout JSONParser) throws(JOSEError) -> Bool {
        let candidate: StaticString
        switch name.hash {
        case 0x8D39_BDE6: candidate = "name"
        case 0xECE6_17B0: candidate = "given_name"
        case 0x72C3_A689: candidate = "family_name"
        case 0x0597_8573: candidate = "preferred_username"
        case 0x8A87_53C7: candidate = "email"
        case 0xA169_DDFC: candidate = "email_verified"
        case 0x312F_D389: candidate = "picture"
        case 0x6B1B_D097: candidate = "locale"
        case 0xD24B_6560: candidate = "updated_at"
        default: return false
        }
        guard name.equals(candidate, in: parser.buffer) else { return false }
        switch name.hash {
        case 0x8D39_BDE6: self.name = try parser.parseValue().optionalString()
        case 0xECE6_17B0: givenName = try parser.parseValue().optionalString()
        case 0x72C3_A689: familyName = try parser.parseValue().optionalString()
        case 0x0597_8573: preferredUsername = try parser.parseValue().optionalString()
        case 0x8A87_53C7: email = try parser.parseValue().optionalString()
        case 0xA169_DDFC: emailVerified = try parser.parseValue().optionalBool()
        case 0x312F_D389: picture = try parser.parseValue().optionalString()
        case 0x6B1B_D097: locale = try parser.parseValue().optionalString()
        default: updatedAt = try parser.parseValue().optionalNumber().map { Date(timeIntervalSince1970: $0) }
        }
        return true
    }

    /// Writes the present claims under their names.
    func encode(to container: inout KeyedEncodingContainer<ClaimName>) throws {
        try container.encodeIfPresent(name, forKey: ClaimName("name"))
        try container.encodeIfPresent(givenName, forKey: ClaimName("given_name"))
        try container.encodeIfPresent(familyName, forKey: ClaimName("family_name"))
        try container.encodeIfPresent(preferredUsername, forKey: ClaimName("preferred_username"))
        try container.encodeIfPresent(email, forKey: ClaimName("email"))
        try container.encodeIfPresent(emailVerified, forKey: ClaimName("email_verified"))
        try container.encodeIfPresent(picture, forKey: ClaimName("picture"))
        try container.encodeIfPresent(locale, forKey: ClaimName("locale"))
        try container.encodeIfPresent(updatedAt, forKey: ClaimName("updated_at"))
    }

    /// Reads the claims ``encode(to:)`` wrote.
    init(from container: KeyedDecodingContainer<ClaimName>) throws {
        self.init(
            name: try container.decodeIfPresent(String.self, forKey: ClaimName("name")),
            givenName: try container.decodeIfPresent(String.self, forKey: ClaimName("given_name")),
            familyName: try container.decodeIfPresent(String.self, forKey: ClaimName("family_name")),
            preferredUsername: try container.decodeIfPresent(String.self, forKey: ClaimName("preferred_username")),
            email: try container.decodeIfPresent(String.self, forKey: ClaimName("email")),
            emailVerified: try container.decodeIfPresent(Bool.self, forKey: ClaimName("email_verified")),
            picture: try container.decodeIfPresent(String.self, forKey: ClaimName("picture")),
            locale: try container.decodeIfPresent(String.self, forKey: ClaimName("locale")),
            updatedAt: try container.decodeIfPresent(Date.self, forKey: ClaimName("updated_at")))
    }
}

extension JSONValue {
    /// The string, or `invalidJSON` for any other type.
    func requiredString() throws(JOSEError) -> String {
        guard case .string(let text) = self else { throw .invalidJSON }
        return text
    }

    /// The string; nil for `null`; `invalidJSON` for any other type.
    func optionalString() throws(JOSEError) -> String? {
        switch self {
        case .null: return nil
        case .string(let text): return text
        default: throw .invalidJSON
        }
    }

    /// The flag; nil for `null`; `invalidJSON` for any other type.
    func optionalBool() throws(JOSEError) -> Bool? {
        switch self {
        case .null: return nil
        case .bool(let flag): return flag
        default: throw .invalidJSON
        }
    }

    /// The number; nil for `null`; `invalidJSON` for any other type.
    func optionalNumber() throws(JOSEError) -> Double? {
        switch self {
        case .null: return nil
        case .number(let number): return number
        default: throw .invalidJSON
        }
    }

    /// The strings of an array; nil for `null`; `invalidJSON` for anything else.
    func optionalStrings() throws(JOSEError) -> [String]? {
        switch self {
        case .null: return nil
        case .array(let values):
            var strings: [String] = []
            strings.reserveCapacity(values.count)
            for value in values {
                strings.append(try value.requiredString())
            }
            return strings
        default: throw .invalidJSON
        }
    }
}
