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
        let input = parser.buffer
        // Three-letter registered claims first: they are in every token.
        if (name.unescaped?.count ?? name.range.count) == 3 {
            if name.matches(Keys.issuer, in: input) {
                issuer = try Self.string(parser.parseValue())
            } else if name.matches(Keys.subject, in: input) {
                subject = try Self.string(parser.parseValue())
            } else if name.matches(Keys.audience, in: input) {
                switch try parser.parseValue() {
                case .string(let single): audience = [single]
                case .array(let values): audience = try Self.strings(values)
                default: throw .invalidJSON
                }
            } else if name.matches(Keys.expiry, in: input) {
                expiry = try Self.number(parser.parseValue())
            } else if name.matches(Keys.issuedAt, in: input) {
                issuedAt = try Self.number(parser.parseValue())
            } else if name.matches(Keys.notBefore, in: input) {
                notBefore = try Self.number(parser.parseValue())
            } else if name.matches(Keys.authorizedParty, in: input) {
                authorizedParty = try Self.string(parser.parseValue())
            } else if name.matches(Keys.acr, in: input) {
                acr = try parser.parseValue().optionalString()
            } else if name.matches(Keys.amr, in: input) {
                amr = try parser.parseValue().optionalStrings()
            } else {
                try keepAdditional(name, from: &parser)
            }
        } else if name.matches(Keys.nonce, in: input) {
            nonce = try Self.string(parser.parseValue())
        } else if name.matches(Keys.accessTokenHash, in: input) {
            accessTokenHash = try Self.string(parser.parseValue())
        } else if name.matches(Keys.canonicalSubject, in: input) {
            canonicalSubject = try Self.string(parser.parseValue())
        } else if name.matches(Keys.isCanonical, in: input) {
            isCanonical = try Self.bool(parser.parseValue())
        } else if name.matches(Keys.linkedSubjects, in: input) {
            guard case .array(let values) = try parser.parseValue() else { throw .invalidJSON }
            linkedSubjects = try Self.strings(values)
        } else if name.matches(Keys.previouslyAnonymous, in: input) {
            previouslyAnonymous = try Self.bool(parser.parseValue())
        } else if name.matches(Keys.anonymous, in: input) {
            anonymous = try Self.bool(parser.parseValue())
        } else if name.matches(Keys.authTime, in: input) {
            authTime = try parser.parseValue().optionalNumber()
        } else if try !profile.read(name, from: &parser) {
            try keepAdditional(name, from: &parser)
        }
    }

    /// Keeps a member no field reads; it is exposed only once the token verified.
    private mutating func keepAdditional(_ name: JSONName, from parser: inout JSONParser) throws(JOSEError) {
        let key = String(decoding: name.bytes(in: parser.buffer), as: UTF8.self)
        additional[key] = ClaimValue(try parser.parseValue())
    }

    /// Claim names with their hashes computed once.
    private enum Keys {
        static let issuer = JSONKey("iss")
        static let subject = JSONKey("sub")
        static let audience = JSONKey("aud")
        static let authorizedParty = JSONKey("azp")
        static let expiry = JSONKey("exp")
        static let issuedAt = JSONKey("iat")
        static let notBefore = JSONKey("nbf")
        static let nonce = JSONKey("nonce")
        static let accessTokenHash = JSONKey("at_hash")
        static let canonicalSubject = JSONKey("canonical_sub")
        static let isCanonical = JSONKey("is_canonical")
        static let linkedSubjects = JSONKey("linked_subs")
        static let previouslyAnonymous = JSONKey("previously_anonymous")
        static let anonymous = JSONKey("anonymous")
        static let authTime = JSONKey("auth_time")
        static let acr = JSONKey("acr")
        static let amr = JSONKey("amr")
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
