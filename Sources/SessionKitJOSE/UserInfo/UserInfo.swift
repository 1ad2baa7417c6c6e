/// The claims a UserInfo endpoint returned about the signed-in person (OpenID Connect Core §5.3),
/// accepted only after its `sub` matched the verified id_token's.
///
/// There is no public initializer: ``decode(_:expectedSubject:)`` is the only way to get one, and
/// it checks the subject first (§5.3.2), so a response about another person can never be mixed
/// into the identity. A plain JSON answer is vouched for by the TLS connection and the access
/// token; a signed one (`application/jwt`) is verified like an id_token first (``isSigned``).
/// Claims from other claims providers (§5.6.2) are split out of ``additionalClaims``: aggregated
/// ones in ``aggregatedClaims``, verified only when the issuer signed them, and distributed ones
/// in ``distributedClaims``, never fetched.
public struct UserInfo: Sendable, Hashable {
    /// `sub`, equal to the id_token's.
    public let subject: String
    /// The standard claims about the person the response carried.
    public let profile: ProfileClaims
    /// Every other member of the response, by name (without `_claim_names` and `_claim_sources`).
    public let additionalClaims: [String: ClaimValue]
    /// Aggregated claims (§5.6.2) by source name.
    public let aggregatedClaims: [String: AggregatedClaims]
    /// Distributed claims (§5.6.2) by source name.
    public let distributedClaims: [String: DistributedClaims]
    /// Whether the response was a signed JWT whose signature, `iss` and `aud` were verified.
    public let isSigned: Bool

    /// Largest response accepted, in bytes.
    public static let maximumSize = 256 * 1024

    /// Decodes a UserInfo response body (`application/json`) and checks that its `sub` equals
    /// `expectedSubject`, the verified id_token's `sub`.
    ///
    /// Parsing is as strict as for an id_token's claims: one JSON object, no duplicate members, and
    /// each standard claim of the type §5.1 gives it.
    public static func decode(_ body: some Collection<UInt8>, expectedSubject: String) throws(UserInfoError) -> UserInfo {
        let info = try decodeIdentifying(body)
        guard info.subject == expectedSubject else { throw .subjectMismatch }
        return info
    }

    /// Decodes a UserInfo response of either form (§5.3.2) and checks its `sub`.
    ///
    /// With `contentType` `application/jwt`, the body is a JWS that must verify with `keys` under
    /// `expecting`'s algorithms, carry `iss` equal to the issuer and an `aud` that contains the
    /// client id, before its claims are read; an encrypted (JWE) response is refused as
    /// `malformed`. Otherwise it is JSON, as ``decode(_:expectedSubject:)`` reads it. Either way,
    /// aggregated claims whose JWT names the issuer as `iss` are verified with `keys`
    /// (``AggregatedClaims/verified(_:)``), and refused when they do not verify.
    public static func decode(
        _ body: some Collection<UInt8>, contentType: String?, keys: JWKS, expecting: UserInfoExpectations, expectedSubject: String
    ) throws(UserInfoError) -> UserInfo {
        let info: UserInfo
        if isJWT(contentType) {
            guard body.count <= maximumSize else { throw .malformed }
            let token = String(decoding: Array(body).trimmingASCIIWhitespace, as: UTF8.self)
            guard token.split(separator: ".", omittingEmptySubsequences: false).count == 3 else { throw .malformed }
            let payload = try verifiedPayload(token, keys: keys, expecting: expecting)
            info = try decodeIdentifying(payload, signed: true, keys: keys, expecting: expecting)
            guard info.additionalClaims["iss"]?.stringValue == expecting.issuer else { throw .issuerMismatch }
            let audience = info.additionalClaims["aud"]
            let audiences = audience?.stringValue.map { [$0] } ?? audience?.arrayValue?.compactMap(\.stringValue) ?? []
            guard audiences.contains(expecting.clientID) else { throw .audienceMismatch }
        } else {
            info = try decodeIdentifying(body, signed: false, keys: keys, expecting: expecting)
        }
        guard info.subject == expectedSubject else { throw .subjectMismatch }
        return info
    }

    /// Whether a `Content-Type` names `application/jwt`, parameters and case aside.
    static func isJWT(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return String(decoding: Array(type.utf8).trimmingASCIIWhitespace, as: UTF8.self).lowercased() == "application/jwt"
    }

    /// The payload of a JWS that verifies with `keys`; verification errors in UserInfo codes.
    static func verifiedPayload(_ token: String, keys: JWKS, expecting: UserInfoExpectations) throws(UserInfoError) -> [UInt8] {
        do {
            return try CompactJWS.verify(
                token, keys: keys, algorithms: expecting.algorithms, allowMissingKeyID: expecting.allowMissingKeyID
            ).payload
        } catch .missingKeyID, .unknownKeyID {
            throw .unknownKey
        } catch .malformed {
            throw .malformed
        } catch {
            throw .badSignature
        }
    }

    /// Decodes a UserInfo response whose `sub` is not known yet: the one case where the response
    /// itself names the person, a sign-in whose token response carried no id_token to compare
    /// with (a device sign-in at a provider that issues none). The caller takes the subject from
    /// here and must hold every later UserInfo answer and id_token to it.
    package static func decodeIdentifying(_ body: some Collection<UInt8>) throws(UserInfoError) -> UserInfo {
        try decodeIdentifying(body, signed: false, keys: nil, expecting: nil)
    }

    private static func decodeIdentifying(
        _ body: some Collection<UInt8>, signed: Bool, keys: JWKS?, expecting: UserInfoExpectations?
    ) throws(UserInfoError) -> UserInfo {
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
        let names = additional.removeValue(forKey: "_claim_names")
        let sources = additional.removeValue(forKey: "_claim_sources")
        let external = try externalClaims(names: names, sources: sources, keys: keys, expecting: expecting)
        return UserInfo(
            subject: subject, profile: profile, additionalClaims: additional, aggregatedClaims: external.aggregated,
            distributedClaims: external.distributed, isSigned: signed)
    }

    /// Aggregated and distributed claims from `_claim_names` and `_claim_sources` (§5.6.2). A
    /// source no claim name points to is ignored; a source of neither form, or members of the
    /// wrong type, is `malformed`.
    private static func externalClaims(
        names: ClaimValue?, sources: ClaimValue?, keys: JWKS?, expecting: UserInfoExpectations?
    ) throws(UserInfoError) -> (aggregated: [String: AggregatedClaims], distributed: [String: DistributedClaims]) {
        guard names != nil || sources != nil else { return ([:], [:]) }
        guard let names = names?.objectValue, let sources = sources?.objectValue else { throw .malformed }
        var namesBySource: [String: [String]] = [:]
        for (claim, source) in names {
            guard let source = source.stringValue else { throw .malformed }
            namesBySource[source, default: []].append(claim)
        }
        var aggregated: [String: AggregatedClaims] = [:]
        var distributed: [String: DistributedClaims] = [:]
        for (source, claimNames) in namesBySource {
            let claimNames = claimNames.sorted()
            guard let member = sources[source]?.objectValue else { throw .malformed }
            if let jwt = member["JWT"] {
                guard let token = jwt.stringValue else { throw .malformed }
                aggregated[source] = try aggregatedClaims(token, claimNames: claimNames, keys: keys, expecting: expecting)
            } else if let endpoint = member["endpoint"]?.stringValue {
                if let token = member["access_token"], token.stringValue == nil { throw .malformed }
                distributed[source] = DistributedClaims(
                    claimNames: claimNames, endpoint: endpoint, accessToken: member["access_token"]?.stringValue)
            } else {
                throw .malformed
            }
        }
        return (aggregated, distributed)
    }

    /// One aggregated claim set: verified when its `iss` is the issuer and keys are at hand.
    private static func aggregatedClaims(
        _ token: String, claimNames: [String], keys: JWKS?, expecting: UserInfoExpectations?
    ) throws(UserInfoError) -> AggregatedClaims {
        let decoded: DecodedJWS
        do {
            decoded = try CompactJWS.decode(token)
        } catch {
            throw .malformed
        }
        let claims = try claimObject(decoded.payload)
        let claimedIssuer = claims["iss"]?.stringValue
        if let keys, let expecting, claimedIssuer == expecting.issuer {
            let payload = try verifiedPayload(token, keys: keys, expecting: expecting)
            return .verified(ClaimSet(claimNames: claimNames, issuer: expecting.issuer, claims: try claimObject(payload)))
        }
        return .unverified(UnverifiedClaimSet(claimNames: claimNames, claimedIssuer: claimedIssuer, claims: claims))
    }

    private static func claimObject(_ payload: [UInt8]) throws(UserInfoError) -> [String: ClaimValue] {
        do {
            return ClaimValue(.object(try JSONParser.parseObject(payload, maximumDepth: 16))).objectValue ?? [:]
        } catch {
            throw .malformed
        }
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

extension [UInt8] {
    /// The bytes without leading and trailing spaces, tabs, carriage returns and line feeds.
    fileprivate var trimmingASCIIWhitespace: ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return [] }
        return self[first...last]
    }
}
