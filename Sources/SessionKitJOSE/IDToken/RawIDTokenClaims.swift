/// The claims an ID token carries, typed but not yet judged: every member is optional, and a
/// member present with the wrong JSON type is a parse failure (`malformed`), never ignored.
struct RawIDTokenClaims {
    var issuer: String?
    var subject: String?
    var audience: [String]?
    var authorizedParty: String?
    var expiry: Double?
    var issuedAt: Double?
    var notBefore: Double?
    var nonce: String?
    var accessTokenHash: String?
    var canonicalSubject: String?
    var isCanonical: Bool?
    var linkedSubjects: [String] = []
    var previouslyAnonymous: Bool?
    var anonymous: Bool?

    /// Parses a claims set, which must be a strict-JSON object.
    init(json payload: [UInt8]) throws(JOSEError) {
        let object = try JSONParser.parseObject(payload, maximumDepth: 16)
        issuer = try Self.string(object["iss"])
        subject = try Self.string(object["sub"])
        switch object["aud"] {
        case nil: audience = nil
        case .string(let single)?: audience = [single]
        case .array(let values)?: audience = try Self.strings(values)
        default: throw .invalidJSON
        }
        authorizedParty = try Self.string(object["azp"])
        expiry = try Self.number(object["exp"])
        issuedAt = try Self.number(object["iat"])
        notBefore = try Self.number(object["nbf"])
        nonce = try Self.string(object["nonce"])
        accessTokenHash = try Self.string(object["at_hash"])
        canonicalSubject = try Self.string(object["canonical_sub"])
        isCanonical = try Self.bool(object["is_canonical"])
        switch object["linked_subs"] {
        case nil: linkedSubjects = []
        case .array(let values)?: linkedSubjects = try Self.strings(values)
        default: throw .invalidJSON
        }
        previouslyAnonymous = try Self.bool(object["previously_anonymous"])
        anonymous = try Self.bool(object["anonymous"])
    }

    private static func string(_ value: JSONValue?) throws(JOSEError) -> String? {
        switch value {
        case nil: return nil
        case .string(let text)?: return text
        default: throw .invalidJSON
        }
    }

    private static func number(_ value: JSONValue?) throws(JOSEError) -> Double? {
        switch value {
        case nil: return nil
        case .number(let number)?: return number
        default: throw .invalidJSON
        }
    }

    private static func bool(_ value: JSONValue?) throws(JOSEError) -> Bool? {
        switch value {
        case nil: return nil
        case .bool(let flag)?: return flag
        default: throw .invalidJSON
        }
    }

    private static func strings(_ values: [JSONValue]) throws(JOSEError) -> [String] {
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard case .string(let text) = value else { throw .invalidJSON }
            strings.append(text)
        }
        return strings
    }
}
