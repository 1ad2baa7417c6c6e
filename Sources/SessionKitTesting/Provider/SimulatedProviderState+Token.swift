import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// `POST /oauth/token`: the authorization code grant (with PKCE) and the refresh token grant.
    mutating func tokenAnswer(
        _ request: HTTPRequest, form decoded: Result<[String: String], SimulatedProviderForm.Failure>, now: Date,
        tampering: SimulatedProviderFault.IDTokenTampering?
    ) -> Answer {
        guard Self.hasContentType(request, "application/x-www-form-urlencoded") else {
            return Self.error(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        let form: [String: String]
        switch decoded {
        case .success(let fields): form = fields
        case .failure(let failure): return Self.formError(failure)
        }
        if let refusal = clientAuthenticationRefusal(request, form: form, now: now) { return refusal }
        var proofKey: String?
        if let dpop = configuration.dpop {
            switch checkDPoPProof(request, dpop: dpop, now: now) {
            case .success(let thumbprint): proofKey = thumbprint
            case .failure(let refusal):
                if dpop.spendsRefreshTokenOnNonceRefusal, refusal.asksForNonce, form["grant_type"] == "refresh_token",
                    let token = form["refresh_token"]
                {
                    // A provider that uses the grant before it checks the nonce: the token is gone.
                    refreshTokens[token] = nil
                }
                return refusal.answer
            }
        }
        var answer: Answer
        switch form["grant_type"] {
        case "authorization_code": answer = exchangeCode(form, proofKey: proofKey, now: now, tampering: tampering)
        case "refresh_token": answer = refresh(form, proofKey: proofKey, now: now, tampering: tampering)
        default: return tokenAnswerWithoutDPoP(form, now: now, tampering: tampering)
        }
        if let nonce = dpopNonce { answer.response.headers["DPoP-Nonce"] = nonce }
        return answer
    }

    /// The grants DPoP does not bind here (device-code polls) and unknown grant types.
    private mutating func tokenAnswerWithoutDPoP(
        _ form: [String: String], now: Date, tampering: SimulatedProviderFault.IDTokenTampering?
    ) -> Answer {
        switch form["grant_type"] {
        case ProviderClient.deviceCodeGrantType: return pollDeviceCode(form, now: now, tampering: tampering)
        case nil: return Self.error(400, "invalid_request", "grant_type is missing")
        default: return Self.error(400, "unsupported_grant_type")
        }
    }

    /// The proof's key thumbprint, nil when no proof came and none is required, or the refusal.
    private mutating func checkDPoPProof(_ request: HTTPRequest, dpop: SimulatedProviderDPoP, now: Date) -> Result<
        String?, DPoPRefusal
    > {
        if dpop.requiresNonce, dpopNonce == nil { dpopNonce = try? RandomToken.generate(byteCount: 16) }
        guard let proof = request.header("DPoP") else {
            return dpop.requiresProof
                ? .failure(DPoPRefusal(Self.error(400, "invalid_dpop_proof", "a DPoP proof is required"))) : .success(nil)
        }
        do throws(SimulatedDPoPVerifier.Failure) {
            return .success(
                try SimulatedDPoPVerifier.verify(
                    proof, method: request.method, url: request.url, now: now, window: dpop.proofWindow,
                    nonce: dpop.requiresNonce ? dpopNonce : nil, accessToken: nil, seen: &dpopProofIDs, keys: &dpopProofKeys))
        } catch {
            switch error {
            case .nonceRequired:
                return .failure(
                    DPoPRefusal(
                        Self.error(
                            400, "use_dpop_nonce", "the proof must carry the server's nonce", headers: ["DPoP-Nonce": dpopNonce ?? ""]),
                        asksForNonce: true))
            case .invalidProof(let why):
                return .failure(DPoPRefusal(Self.error(400, "invalid_dpop_proof", why)))
            }
        }
    }

    /// A refused proof's answer, as an error so it can travel in a `Result`.
    struct DPoPRefusal: Error {
        let answer: Answer
        /// Whether the refusal is `use_dpop_nonce`.
        let asksForNonce: Bool

        init(_ answer: Answer, asksForNonce: Bool = false) {
            self.answer = answer
            self.asksForNonce = asksForNonce
        }
    }

    private mutating func exchangeCode(
        _ form: [String: String], proofKey: String?, now: Date, tampering: SimulatedProviderFault.IDTokenTampering?
    ) -> Answer {
        guard let code = form["code"], var record = codes[code] else {
            return Self.error(400, "invalid_grant", "unknown authorization code")
        }
        if let grantID = record.grantID {
            // RFC 6749 §10.5: a replayed code revokes what was issued from it.
            revokeGrant(grantID, reason: .authorizationCodeReuse)
            return Self.error(400, "invalid_grant", "the authorization code was already used")
        }
        guard now < record.issuedAt.addingTimeInterval(configuration.authorizationCodeLifetime.simulatedProviderSeconds)
        else { return Self.error(400, "invalid_grant", "the authorization code expired") }
        guard record.clientID == form["client_id"] else {
            return Self.error(400, "invalid_grant", "the code was issued to another client")
        }
        guard form["redirect_uri"] == record.redirectURI else {
            return Self.error(400, "invalid_grant", "redirect_uri does not match the authorization request")
        }
        guard let verifier = form["code_verifier"] else {
            return Self.error(400, "invalid_grant", "code_verifier is missing")
        }
        guard Self.isWellFormedVerifier(verifier), PKCE.challenge(forVerifier: verifier) == record.challenge else {
            return Self.error(400, "invalid_grant", "PKCE verification failed")
        }
        if let bound = record.dpopJKT, bound != proofKey {
            return Self.error(400, "invalid_grant", "the code is bound to another DPoP key")
        }
        let grantID = nextGrantID
        let grant = Grant(
            subject: record.subject, clientID: record.clientID, scope: record.scope, authTime: record.authTime, acr: record.acr,
            dpopJKT: proofKey)
        let answer = issueTokens(for: grant, grantID: grantID, nonce: record.nonce, isRefresh: false, now: now, tampering: tampering)
        if answer.response.status == 200 {
            nextGrantID += 1
            record.grantID = grantID
            codes[code] = record
        }
        return answer
    }

    private mutating func refresh(
        _ form: [String: String], proofKey: String?, now: Date, tampering: SimulatedProviderFault.IDTokenTampering?
    ) -> Answer {
        guard let token = form["refresh_token"], let record = refreshTokens[token], let grant = grants[record.grantID]
        else { return Self.error(400, "invalid_grant", "unknown refresh token") }
        guard !grant.isRevoked else { return Self.error(400, "invalid_grant", "the grant was revoked") }
        guard grant.clientID == form["client_id"] else {
            return Self.error(400, "invalid_grant", "the refresh token was issued to another client")
        }
        // RFC 9449 §5: a bound refresh token is usable only with a proof of its key.
        if let bound = grant.dpopJKT, bound != proofKey {
            return Self.error(400, "invalid_grant", "the refresh token is bound to another DPoP key")
        }
        let forgivenReplay = grant.currentRefreshToken != token && isReplayWithinGracePeriod(token, of: grant, now: now)
        guard grant.currentRefreshToken == token || forgivenReplay else {
            revokeGrant(record.grantID, reason: .refreshTokenReuse)
            return Self.error(400, "invalid_grant", "refresh token reuse detected; the grant was revoked")
        }
        if let lifetime = configuration.refreshTokenLifetime,
            now >= record.issuedAt.addingTimeInterval(lifetime.simulatedProviderSeconds)
        {
            return Self.error(400, "invalid_grant", "the refresh token expired")
        }
        if let scope = form["scope"] {
            let granted = Set(grant.scope.split(separator: " "))
            guard Set(scope.split(separator: " ")).isSubset(of: granted) else {
                return Self.error(400, "invalid_scope", "the scope exceeds the original grant")
            }
        }
        var next = grant
        if !forgivenReplay && configuration.rotatesRefreshTokens {
            next.previousRefreshToken = token
            next.previousRetiredAt = now
        }
        return issueTokens(for: next, grantID: record.grantID, nonce: nil, isRefresh: true, now: now, tampering: tampering)
    }

    /// Whether `token` is the one the chain's last rotation replaced, presented again within
    /// ``SimulatedProviderConfiguration/refreshTokenReuseGracePeriod`` of that rotation.
    private func isReplayWithinGracePeriod(_ token: String, of grant: Grant, now: Date) -> Bool {
        guard let grace = configuration.refreshTokenReuseGracePeriod, grant.previousRefreshToken == token,
            let retiredAt = grant.previousRetiredAt
        else { return false }
        return now < retiredAt.addingTimeInterval(grace.simulatedProviderSeconds)
    }

    /// Builds and signs everything first, then records it, so a signing failure changes nothing.
    mutating func issueTokens(
        for grant: Grant, grantID: Int, nonce: String?, isRefresh: Bool, now: Date,
        tampering: SimulatedProviderFault.IDTokenTampering?, includesIDToken: Bool = true
    ) -> Answer {
        let accessToken: String
        let refreshToken: String?
        let idToken: String?
        do {
            accessToken = try RandomToken.generate(byteCount: 32)
            let offline = !configuration.refreshTokensRequireOfflineAccess || grant.scope.split(separator: " ").contains("offline_access")
            let rotates = isRefresh ? configuration.rotatesRefreshTokens : offline
            refreshToken = rotates ? try RandomToken.generate(byteCount: 32) : nil
            idToken =
                includesIDToken && (!isRefresh || configuration.issuesIDTokenOnRefresh)
                ? try makeIDToken(
                    subject: grant.subject, clientID: grant.clientID, nonce: nonce, accessToken: accessToken, now: now,
                    tampering: tampering, authTime: grant.authTime, acr: grant.acr)
                : nil
        } catch {
            return Self.error(500, "server_error", "the tokens could not be issued")
        }

        var stored = grant
        if let refreshToken {
            refreshTokens[refreshToken] = RefreshTokenRecord(grantID: grantID, issuedAt: now)
            stored.currentRefreshToken = refreshToken
        }
        grants[grantID] = stored
        let lifetime = configuration.accessTokenLifetime.simulatedProviderSeconds
        accessTokens[accessToken] = AccessTokenRecord(grantID: grantID, expiresAt: now.addingTimeInterval(lifetime))

        var members: [(String, SimulatedProviderJSON)] = [
            ("access_token", .string(accessToken)),
            ("token_type", .string(grant.dpopJKT != nil && !dpopIssuesBearer ? "DPoP" : "Bearer")),
            ("expires_in", .integer(Int(lifetime.rounded(.down)))),
        ]
        if let refreshToken { members.append(("refresh_token", .string(refreshToken))) }
        if let idToken { members.append(("id_token", .string(idToken))) }
        members.append(("scope", .string(grant.scope)))
        return Answer(Self.json(200, .object(members)))
    }

    /// Signs an id_token with the current key, altered as `tampering` asks.
    func makeIDToken(
        subject: String, clientID: String, nonce: String?, accessToken: String?, now: Date,
        tampering: SimulatedProviderFault.IDTokenTampering?, authTime: Date? = nil, acr: String? = nil
    ) throws(CryptoError) -> String {
        var issuer = configuration.issuerString
        var sub = subject
        var audiences = [clientID] + configuration.additionalAudiences
        var nonce = nonce
        var issuedAt = now
        var expiresAt = now.addingTimeInterval(configuration.idTokenLifetime.simulatedProviderSeconds)
        var keyID: String? = currentKey.keyID
        switch tampering {
        case .subject(let other): sub = other
        case .audience(let other): audiences = [other]
        case .issuer(let other): issuer = other
        case .nonce(let other): nonce = other
        case .expired:
            issuedAt = now.addingTimeInterval(-7200)
            expiresAt = now.addingTimeInterval(-3600)
        case .keyID(let other): keyID = other
        case .noKeyID: keyID = nil
        case .issuedInFuture:
            issuedAt = now.addingTimeInterval(3600)
            expiresAt = issuedAt.addingTimeInterval(configuration.idTokenLifetime.simulatedProviderSeconds)
        case .authorizedParty: audiences.append("another-audience")
        case .badSignature, .unsigned, .accessTokenHash, .missingIssuedAt, nil: break
        }

        var claims: [(String, SimulatedProviderJSON)] = [
            ("iss", .string(issuer)),
            ("sub", .string(sub)),
            ("aud", audiences.count == 1 ? .string(audiences[0]) : .array(audiences.map(SimulatedProviderJSON.string))),
            ("exp", .integer(Self.seconds(expiresAt))),
            ("iat", .integer(Self.seconds(issuedAt))),
        ]
        if tampering == .missingIssuedAt { claims.removeAll { $0.0 == "iat" } }
        if case .authorizedParty(let party) = tampering {
            claims.append(("azp", .string(party)))
        } else if audiences.count > 1 {
            claims.append(("azp", .string(clientID)))
        }
        if let nonce { claims.append(("nonce", .string(nonce))) }
        if let accessToken {
            let hashed = tampering == .accessTokenHash ? accessToken + "-other" : accessToken
            claims.append(("at_hash", .string(AccessTokenHash.compute(for: hashed))))
        }
        if let authTime { claims.append(("auth_time", .integer(Self.seconds(authTime)))) }
        if let acr { claims.append(("acr", .string(acr))) }
        claims += personClaims(of: subject)
        if let user = users[subject] {
            if let value = user.canonicalSubject { claims.append(("canonical_sub", .string(value))) }
            if let value = user.isCanonical { claims.append(("is_canonical", .bool(value))) }
            if let value = user.linkedSubjects {
                claims.append(("linked_subs", .array(value.map(SimulatedProviderJSON.string))))
            }
            if let value = user.isAnonymous { claims.append(("anonymous", .bool(value))) }
            if let value = user.wasPreviouslyAnonymous { claims.append(("previously_anonymous", .bool(value))) }
            if let value = user.authenticationMethods { claims.append(("amr", .array(value.map(SimulatedProviderJSON.string)))) }
        }

        if tampering == .unsigned {
            return Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "."
                + Base64URL.encode(SimulatedProviderJSON.object(claims).bytes) + "."
        }
        let token = try currentKey.sign(SimulatedProviderJSON.object(claims).bytes, keyID: keyID)
        return tampering == .badSignature ? Self.corruptingSignature(of: token) : token
    }

    /// The registered standard and additional claims about `subject`, as id_tokens and UserInfo
    /// answers carry them: the standard ones in OIDC Core §5.1 order, then the others by name.
    func personClaims(of subject: String) -> [(String, SimulatedProviderJSON)] {
        guard let user = users[subject] else { return [] }
        let profile = user.profile
        var claims: [(String, SimulatedProviderJSON)] = []
        let strings: [(String, String?)] = [
            ("name", profile.name), ("given_name", profile.givenName), ("family_name", profile.familyName),
            ("preferred_username", profile.preferredUsername), ("picture", profile.picture),
            ("email", profile.email ?? user.email),
        ]
        for case (let name, let value?) in strings {
            claims.append((name, .string(value)))
        }
        if let value = profile.emailVerified { claims.append(("email_verified", .bool(value))) }
        if let value = profile.locale { claims.append(("locale", .string(value))) }
        if let value = profile.updatedAt { claims.append(("updated_at", .integer(Self.seconds(value)))) }
        // A name the provider writes itself is never repeated: a token with a duplicate member is malformed.
        let written: Set<String> = [
            "iss", "sub", "aud", "azp", "exp", "iat", "nbf", "nonce", "at_hash", "auth_time", "acr", "amr", "canonical_sub",
            "is_canonical", "linked_subs", "anonymous", "previously_anonymous", "name", "given_name", "family_name",
            "preferred_username", "picture", "email", "email_verified", "locale", "updated_at",
        ]
        for name in user.additionalClaims.keys.sorted() where !written.contains(name) {
            claims.append((name, SimulatedProviderJSON(user.additionalClaims[name] ?? .null)))
        }
        return claims
    }

    /// Changes the first character of the signature, which flips signature bits while keeping it valid base64url.
    static func corruptingSignature(of token: String) -> String {
        guard let lastDot = token.lastIndex(of: ".") else { return token }
        let signatureStart = token.index(after: lastDot)
        guard signatureStart < token.endIndex else { return token }
        let replacement: Character = token[signatureStart] == "A" ? "B" : "A"
        return String(token[..<signatureStart]) + String(replacement) + String(token[token.index(after: signatureStart)...])
    }

    static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }

    /// RFC 7636 §4.1: 43 to 128 unreserved characters.
    static func isWellFormedVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    true
                default: false
                }
            }
    }

    static func hasContentType(_ request: HTTPRequest, _ expected: String) -> Bool {
        guard let value = request.header("Content-Type") else { return false }
        // The media type before any parameter, without the optional whitespace around it (RFC 9110 §8.3).
        let mediaType = value.utf8.prefix { $0 != UInt8(ascii: ";") }
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        let trimmed = mediaType.drop(while: isSpace).reversed().drop(while: isSpace).reversed()
        return ASCII.caseInsensitiveEquals(String(decoding: trimmed, as: UTF8.self), expected)
    }

    static func formError(_ failure: SimulatedProviderForm.Failure) -> Answer {
        switch failure {
        case .repeated: error(400, "invalid_request", "a parameter is repeated")
        case .undecodable: error(400, "invalid_request", "the form could not be decoded")
        }
    }
}
