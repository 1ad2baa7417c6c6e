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
    var profile = ProfileClaims()
    var authTime: Double?
    var acr: String?
    var amr: [String]?
    /// Members no field above reads, kept as parsed.
    var additional: [String: ClaimValue] = [:]

    private init() {}

    /// Parses a claims set, which must be a strict-JSON object (syntax, UTF-8, no duplicate
    /// members). Members no field reads are kept in ``additional``.
    init(json payload: [UInt8]) throws(JOSEError) {
        self = try payload.withUnsafeBufferPointer { (buffer) throws(JOSEError) -> RawIDTokenClaims in
            var claims = RawIDTokenClaims()
            try JSONParser.scanObject(buffer, maximumDepth: 16) { (name, parser) throws(JOSEError) in
                try claims.read(name, from: &parser)
            }
            return claims
        }
    }

    private mutating func read(_ name: JSONName, from parser: inout JSONParser) throws(JOSEError) {
        guard let claim = Claim(name, in: parser.buffer) else {
            if try !profile.read(name, from: &parser) { try keepAdditional(name, from: &parser) }
            return
        }
        switch claim {
        case .issuer: issuer = try Self.string(parser.parseValue())
        case .subject: subject = try Self.string(parser.parseValue())
        case .audience:
            switch try parser.parseValue() {
            case .string(let single): audience = [single]
            case .array(let values): audience = try Self.strings(values)
            default: throw .invalidJSON
            }
        case .expiry: expiry = try Self.number(parser.parseValue())
        case .issuedAt: issuedAt = try Self.number(parser.parseValue())
        case .notBefore: notBefore = try Self.number(parser.parseValue())
        case .authorizedParty: authorizedParty = try Self.string(parser.parseValue())
        case .acr: acr = try parser.parseValue().optionalString()
        case .amr: amr = try parser.parseValue().optionalStrings()
        case .nonce: nonce = try Self.string(parser.parseValue())
        case .accessTokenHash: accessTokenHash = try Self.string(parser.parseValue())
        case .canonicalSubject: canonicalSubject = try Self.string(parser.parseValue())
        case .isCanonical: isCanonical = try Self.bool(parser.parseValue())
        case .linkedSubjects:
            guard case .array(let values) = try parser.parseValue() else { throw .invalidJSON }
            linkedSubjects = try Self.strings(values)
        case .previouslyAnonymous: previouslyAnonymous = try Self.bool(parser.parseValue())
        case .anonymous: anonymous = try Self.bool(parser.parseValue())
        case .authTime: authTime = try parser.parseValue().optionalNumber()
        }
    }

    /// The claims this type reads by name.
    ///
    /// A name is found by one switch over its FNV-1a hash (``JSONKey/hash(_:)``, computed while
    /// scanning) and then compared byte for byte, so a member costs one jump and one short compare
    /// instead of a compare per known claim. The hash literals are checked against the names by a
    /// test.
    enum Claim: CaseIterable {
        case issuer, subject, audience, authorizedParty, expiry, issuedAt, notBefore, acr, amr, nonce, accessTokenHash
        case canonicalSubject, isCanonical, linkedSubjects, previouslyAnonymous, anonymous, authTime

        /// The claim `name` is, or nil for a name this type does not read.
        init?(_ name: JSONName, in input: UnsafeBufferPointer<UInt8>) {
            let claim: Claim
            switch name.hash {
            case 0x8909_BD92: claim = .issuer
            case 0xDC4E_3915: claim = .subject
            case 0x4163_FCED: claim = .audience
            case 0x1B5B_7256: claim = .authorizedParty
            case 0x72A6_8728: claim = .expiry
            case 0x97DC_B591: claim = .issuedAt
            case 0x1997_3FDD: claim = .notBefore
            case 0x334A_4EFD: claim = .acr
            case 0x1B27_96F3: claim = .amr
            case 0xF908_79F8: claim = .nonce
            case 0xE46E_5261: claim = .accessTokenHash
            case 0x401E_68DC: claim = .canonicalSubject
            case 0xA833_E318: claim = .isCanonical
            case 0x3344_B09A: claim = .linkedSubjects
            case 0x16A3_0FDD: claim = .previouslyAnonymous
            case 0x72D9_DA2E: claim = .anonymous
            case 0x2924_60C9: claim = .authTime
            default: return nil
            }
            guard name.equals(claim.name, in: input) else { return nil }
            self = claim
        }

        /// The member name.
        var name: StaticString {
            switch self {
            case .issuer: "iss"
            case .subject: "sub"
            case .audience: "aud"
            case .authorizedParty: "azp"
            case .expiry: "exp"
            case .issuedAt: "iat"
            case .notBefore: "nbf"
            case .acr: "acr"
            case .amr: "amr"
            case .nonce: "nonce"
            case .accessTokenHash: "at_hash"
            case .canonicalSubject: "canonical_sub"
            case .isCanonical: "is_canonical"
            case .linkedSubjects: "linked_subs"
            case .previouslyAnonymous: "previously_anonymous"
            case .anonymous: "anonymous"
            case .authTime: "auth_time"
            }
        }
    }

    /// Keeps a member no field reads; it is exposed only once the token verified.
    private mutating func keepAdditional(_ name: JSONName, from parser: inout JSONParser) throws(JOSEError) {
        let key = String(decoding: name.bytes(in: parser.buffer), as: UTF8.self)
        additional[key] = ClaimValue(try parser.parseValue())
    }

    private static func string(_ value: JSONValue) throws(JOSEError) -> String {
        guard case .string(let text) = value else { throw .invalidJSON }
        return text
    }

    private static func number(_ value: JSONValue) throws(JOSEError) -> Double {
        guard case .number(let number) = value else { throw .invalidJSON }
        return number
    }

    private static func bool(_ value: JSONValue) throws(JOSEError) -> Bool {
        guard case .bool(let flag) = value else { throw .invalidJSON }
        return flag
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
