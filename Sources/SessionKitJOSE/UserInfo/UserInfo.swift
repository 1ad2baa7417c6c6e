/// The claims a UserInfo endpoint returned about the signed-in person (OpenID Connect Core §5.3),
/// accepted only after its `sub` matched the verified id_token's.
///
/// There is no public initializer: ``decode(_:expectedSubject:)`` is the only way to get one, and
/// it checks the subject first (§5.3.2), so a response about another person can never be mixed
/// into the identity. UserInfo claims are not signed; the TLS connection and the access token
/// vouch for them.
public struct UserInfo: Sendable, Hashable {
    /// `sub`, equal to the id_token's.
    public let subject: String
    /// The standard claims about the person the response carried.
    public let profile: ProfileClaims
    /// Every other member of the response, by name.
    public let additionalClaims: [String: ClaimValue]

    /// Largest response accepted, in bytes.
    public static let maximumSize = 256 * 1024

    /// Decodes a UserInfo response body (`application/json`) and checks that its `sub` equals
    /// `expectedSubject`, the verified id_token's `sub`.
    ///
    /// Parsing is as strict as for an id_token's claims: one JSON object, no duplicate members, and
    /// each standard claim of the type §5.1 gives it.
    public static func decode(_ body: some Collection<UInt8>, expectedSubject: String) throws(UserInfoError) -> UserInfo {
        guard body.count <= maximumSize else { throw .malformed }
        var subject: String?
        var profile = ProfileClaims()
        var additional: [String: ClaimValue] = [:]
        do throws(JOSEError) {
            try Array(body).withUnsafeBufferPointer { (buffer) throws(JOSEError) in
                try JSONParser.scanObject(buffer, maximumDepth: 16) { (name, parser) throws(JOSEError) in
                    if name.matches(subjectKey, in: parser.buffer) {
                        subject = try parser.parseValue().requiredString()
                    } else if try !profile.read(name, from: &parser) {
                        let key = String(decoding: name.bytes(in: parser.buffer), as: UTF8.self)
                        additional[key] = ClaimValue(try parser.parseValue())
                    }
                }
            }
        } catch {
            throw .malformed
        }
        guard let subject, !subject.isEmpty else { throw .missingClaim }
        guard subject == expectedSubject else { throw .subjectMismatch }
        return UserInfo(subject: subject, profile: profile, additionalClaims: additional)
    }

    private static let subjectKey = JSONKey("sub")

    /// A claim the library does not read itself, decoded as `type`; `nil` when absent.
    ///
    /// - Throws: ``ClaimError/typeMismatch(claim:)`` when the claim has another shape.
    public func custom<T: Decodable>(_ name: String, as type: T.Type = T.self) throws(ClaimError) -> T? {
        guard let value = additionalClaims[name] else { return nil }
        return try value.decode(as: type, claim: name)
    }
}
