import Foundation
import SessionKitJOSE
import Testing

/// One row of the validator table: how to build the token and keys, and the one expected outcome.
struct ValidatorCase: Sendable, CustomTestStringConvertible {
    let name: String
    let expected: IDTokenError?
    var keys: @Sendable (TokenFactory) throws -> JWKS = { try ValidatorCase.providerKeys($0) }
    var expecting: @Sendable (TokenFactory) -> IDTokenExpectations = { $0.expectations() }
    let token: @Sendable (TokenFactory) throws -> String

    var testDescription: String { name }

    static func providerKeys(_ factory: TokenFactory) throws -> JWKS {
        let rotated = try #require(TestKeys.rotated)
        let ec = JWK(kty: "EC", kid: "ec1", use: "sig", alg: "ES256")
        return JWKS(keys: [factory.key.publicJWK(keyID: "k1"), rotated.publicJWK(keyID: "k2"), ec])
    }

    static func claims(_ factory: TokenFactory, _ change: (inout [String: Any]) -> Void) -> [String: Any] {
        var claims = factory.standardClaims()
        change(&claims)
        return claims
    }

    /// A correctly signed token whose segments are then rewritten by `edit`.
    static func edited(_ factory: TokenFactory, _ edit: ([String]) -> [String]) throws -> String {
        let token = try factory.token(claims: factory.standardClaims())
        return edit(token.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
            .joined(separator: ".")
    }
}

@Suite struct IDTokenValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let seconds = 1_800_000_000

    static func factory() throws -> TokenFactory {
        TokenFactory(key: try #require(TestKeys.provider), now: now)
    }

    static let cases: [ValidatorCase] = [
        // The happy path and its legitimate variants.
        ValidatorCase(name: "valid token", expected: nil) { try $0.token(claims: $0.standardClaims()) },
        ValidatorCase(name: "rotated key k2", expected: nil) {
            try $0.token(claims: $0.standardClaims(), keyID: "k2", signer: try TestKeys.required(TestKeys.rotated))
        },
        ValidatorCase(name: "empty payload object fields beyond standard ignored", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["extra"] = ["nested": [1, 2, 3]] })
        },

        // alg and signature.
        ValidatorCase(name: "empty token", expected: .malformed) { _ in "" },
        ValidatorCase(name: "token of dots only", expected: .malformed) { _ in ".." },
        ValidatorCase(name: "alg none with empty signature", expected: .malformed) { f in
            let header = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8))
            let payload = Base64URL.encode(TokenFactory.json(f.standardClaims()))
            return header + "." + payload + "."
        },
        ValidatorCase(name: "alg none with a signature", expected: .badSignature) { f in
            let header = Base64URL.encode(Array(#"{"alg":"none","kid":"k1"}"#.utf8))
            let payload = Base64URL.encode(TokenFactory.json(f.standardClaims()))
            return header + "." + payload + "." + Base64URL.encode([0])
        },
        ValidatorCase(name: "HS256 keyed with the RSA public key", expected: .badSignature) { f in
            let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"k1","typ":"JWT"}"#.utf8))
            let payload = Base64URL.encode(TokenFactory.json(f.standardClaims()))
            let secret = JWKS(keys: [f.key.publicJWK(keyID: "k1")]).jsonData()
            let mac = HMACSHA256.mac(key: secret, message: Array((header + "." + payload).utf8))
            return header + "." + payload + "." + Base64URL.encode(mac)
        },
        ValidatorCase(name: "RS512 header", expected: .badSignature) { f in
            try f.token(rawHeader: #"{"alg":"RS512","kid":"k1"}"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "lowercase rs256", expected: .badSignature) { f in
            try f.token(rawHeader: #"{"alg":"rs256","kid":"k1"}"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "signed by an unpublished key under a known kid", expected: .badSignature) { f in
            try f.token(claims: f.standardClaims(), keyID: "k1", signer: try TestKeys.required(TestKeys.attacker))
        },
        ValidatorCase(name: "embedded jwk with the attacker's key, known kid", expected: .badSignature) { f in
            let attacker = try #require(TestKeys.attacker)
            let jwk = attacker.publicJWK(keyID: "k1")
            let header: [String: Any] = [
                "alg": "RS256", "kid": "k1", "jwk": ["kty": "RSA", "n": jwk.n ?? "", "e": jwk.e ?? ""],
            ]
            return try f.token(header: header, claims: f.standardClaims(), signer: attacker)
        },
        ValidatorCase(name: "embedded jwk with the attacker's key, own kid", expected: .unknownKeyID) { f in
            let attacker = try #require(TestKeys.attacker)
            let jwk = attacker.publicJWK(keyID: "evil")
            let header: [String: Any] = [
                "alg": "RS256", "kid": "evil", "jwk": ["kty": "RSA", "kid": "evil", "n": jwk.n ?? "", "e": jwk.e ?? ""],
            ]
            return try f.token(header: header, claims: f.standardClaims(), signer: attacker)
        },
        ValidatorCase(name: "jku and x5u pointing elsewhere are never fetched", expected: .badSignature) { f in
            let header: [String: Any] = [
                "alg": "RS256", "kid": "k1", "jku": "https://evil.example/jwks", "x5u": "https://evil.example/cert",
            ]
            return try f.token(header: header, claims: f.standardClaims(), signer: try TestKeys.required(TestKeys.attacker))
        },
        ValidatorCase(name: "signature bit flipped", expected: .badSignature) { f in
            try ValidatorCase.edited(f) { parts in
                var signature = (try? Base64URL.decode(parts[2])) ?? []
                signature[signature.count - 1] ^= 1
                return [parts[0], parts[1], Base64URL.encode(signature)]
            }
        },
        ValidatorCase(name: "signature truncated by one byte", expected: .badSignature) { f in
            try ValidatorCase.edited(f) { parts in
                let signature = (try? Base64URL.decode(parts[2])) ?? []
                return [parts[0], parts[1], Base64URL.encode(signature.dropLast())]
            }
        },
        ValidatorCase(name: "payload swapped after signing", expected: .badSignature) { f in
            try ValidatorCase.edited(f) { parts in
                let other = ValidatorCase.claims(f) { $0["sub"] = "admin" }
                return [parts[0], Base64URL.encode(TokenFactory.json(other)), parts[2]]
            }
        },

        // Key selection.
        ValidatorCase(name: "missing kid", expected: .missingKeyID) { f in
            try f.token(claims: f.standardClaims(), keyID: nil)
        },
        ValidatorCase(
            name: "missing kid allowed but two keys", expected: .missingKeyID,
            expecting: { f in
                var e = f.expectations()
                e.allowMissingKeyID = true
                return e
            },
            token: { f in try f.token(claims: f.standardClaims(), keyID: nil) }
        ),
        ValidatorCase(
            name: "missing kid allowed with exactly one RSA key", expected: nil,
            keys: { f in JWKS(keys: [f.key.publicJWK(keyID: "k1"), JWK(kty: "EC", kid: "ec1")]) },
            expecting: { f in
                var e = f.expectations()
                e.allowMissingKeyID = true
                return e
            },
            token: { f in try f.token(claims: f.standardClaims(), keyID: nil) }
        ),
        ValidatorCase(
            name: "missing kid allowed, empty set", expected: .unknownKeyID,
            keys: { _ in JWKS(keys: []) },
            expecting: { f in
                var e = f.expectations()
                e.allowMissingKeyID = true
                return e
            },
            token: { f in try f.token(claims: f.standardClaims(), keyID: nil) }
        ),
        ValidatorCase(name: "unknown kid", expected: .unknownKeyID) { f in
            try f.token(claims: f.standardClaims(), keyID: "k9")
        },
        ValidatorCase(name: "kid differs only in case", expected: .unknownKeyID) { f in
            try f.token(claims: f.standardClaims(), keyID: "K1")
        },
        ValidatorCase(name: "kid names an EC key", expected: .unknownKeyID) { f in
            try f.token(claims: f.standardClaims(), keyID: "ec1")
        },
        ValidatorCase(
            name: "kid names an RSA encryption key", expected: .unknownKeyID,
            keys: { f in
                var jwk = f.key.publicJWK(keyID: "k1")
                jwk.use = "enc"
                return JWKS(keys: [jwk])
            },
            token: { f in try f.token(claims: f.standardClaims()) }
        ),
        ValidatorCase(
            name: "kid names an RSA key for RS512", expected: .unknownKeyID,
            keys: { f in
                var jwk = f.key.publicJWK(keyID: "k1")
                jwk.alg = "RS512"
                return JWKS(keys: [jwk])
            },
            token: { f in try f.token(claims: f.standardClaims()) }
        ),
        ValidatorCase(
            name: "kid names a 1024-bit RSA key", expected: .unknownKeyID,
            keys: { f in
                var jwk = f.key.publicJWK(keyID: "k1")
                let modulus = (try? Base64URL.decode(jwk.n ?? "")) ?? []
                jwk.n = Base64URL.encode(modulus.prefix(128))
                return JWKS(keys: [jwk])
            },
            token: { f in try f.token(claims: f.standardClaims()) }
        ),
        ValidatorCase(name: "kid is a number", expected: .malformed) { f in
            try f.token(rawHeader: #"{"alg":"RS256","kid":1}"#, claims: f.standardClaims())
        },

        // Structure and encoding.
        ValidatorCase(name: "duplicate alg in header", expected: .malformed) { f in
            try f.token(rawHeader: #"{"alg":"none","kid":"k1","alg":"RS256"}"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "duplicate kid in header", expected: .malformed) { f in
            try f.token(rawHeader: #"{"alg":"RS256","kid":"k1","kid":"k2"}"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "crit header", expected: .malformed) { f in
            try f.token(rawHeader: #"{"alg":"RS256","kid":"k1","crit":["exp"],"exp":1}"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "missing alg", expected: .malformed) { f in
            try f.token(rawHeader: #"{"kid":"k1"}"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "header is an array", expected: .malformed) { f in
            try f.token(rawHeader: #"["RS256"]"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "header with trailing garbage", expected: .malformed) { f in
            try f.token(rawHeader: #"{"alg":"RS256","kid":"k1"}x"#, claims: f.standardClaims())
        },
        ValidatorCase(name: "trailing dot", expected: .malformed) { f in
            try f.token(claims: f.standardClaims()) + "."
        },
        ValidatorCase(name: "four segments", expected: .malformed) { f in
            try ValidatorCase.edited(f) { $0 + [$0[2]] }
        },
        ValidatorCase(name: "two segments", expected: .malformed) { f in
            try ValidatorCase.edited(f) { Array($0.prefix(2)) }
        },
        ValidatorCase(name: "empty header segment", expected: .malformed) { f in
            try ValidatorCase.edited(f) { ["", $0[1], $0[2]] }
        },
        ValidatorCase(name: "padded base64url signature", expected: .malformed) { f in
            // 256 signature bytes encode to 342 characters + "==" with padding.
            try ValidatorCase.edited(f) { [$0[0], $0[1], $0[2] + "=="] }
        },
        ValidatorCase(name: "standard base64 alphabet", expected: .malformed) { f in
            try ValidatorCase.edited(f) { parts in
                [parts[0], parts[1], parts[2].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")]
            }
        },
        ValidatorCase(name: "non-canonical trailing bits in signature", expected: .malformed) { f in
            try ValidatorCase.edited(f) { parts in
                // 342 characters: the last carries 4 unused bits, which a canonical encoder zeroes.
                var signature = Array(parts[2].utf8)
                let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
                let value = alphabet.firstIndex(of: signature[signature.count - 1]) ?? 0
                signature[signature.count - 1] = alphabet[value | 1]
                return [parts[0], parts[1], String(decoding: signature, as: UTF8.self)]
            }
        },
        ValidatorCase(name: "whitespace inside a segment", expected: .malformed) { f in
            try ValidatorCase.edited(f) { [$0[0], " " + $0[1], $0[2]] }
        },
        ValidatorCase(name: "oversized token", expected: .malformed) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["pad"] = String(repeating: "a", count: 13_000) })
        },
        ValidatorCase(name: "payload not JSON", expected: .malformed) { f in
            try CompactJWS.signRS256(payload: Array("hello".utf8), keyID: "k1", key: f.key)
        },
        ValidatorCase(name: "empty payload", expected: .malformed) { f in
            try CompactJWS.signRS256(payload: [], keyID: "k1", key: f.key)
        },
        ValidatorCase(name: "duplicate sub claim", expected: .malformed) { f in
            let payload =
                #"{"iss":"https://api.1pass.dev","sub":"user-1","aud":"client-123","exp":1800003600,"iat":1800000000,"nonce":"n-0S6_WzA2Mj","sub":"admin"}"#
            return try CompactJWS.signRS256(payload: Array(payload.utf8), keyID: "k1", key: f.key)
        },
        ValidatorCase(name: "exp is a string", expected: .malformed) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = "1800003600" })
        },
        ValidatorCase(name: "aud array with a number", expected: .malformed) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["aud"] = [TokenFactory.clientID, 7] })
        },

        // iss, aud, azp.
        ValidatorCase(name: "wrong issuer", expected: .issuerMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iss"] = "https://evil.example" })
        },
        ValidatorCase(name: "issuer with trailing slash", expected: .issuerMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iss"] = TokenFactory.issuer + "/" })
        },
        ValidatorCase(name: "missing issuer", expected: .issuerMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iss"] = nil })
        },
        ValidatorCase(name: "wrong audience", expected: .audienceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["aud"] = "other-client" })
        },
        ValidatorCase(name: "missing audience", expected: .audienceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["aud"] = nil })
        },
        ValidatorCase(name: "aud array of one without azp", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["aud"] = [TokenFactory.clientID] })
        },
        ValidatorCase(name: "aud array of two without azp", expected: .audienceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["aud"] = [TokenFactory.clientID, "api"] })
        },
        ValidatorCase(name: "aud array of two with azp", expected: nil) { f in
            try f.token(
                claims: ValidatorCase.claims(f) {
                    $0["aud"] = [TokenFactory.clientID, "api"]
                    $0["azp"] = TokenFactory.clientID
                })
        },
        ValidatorCase(name: "aud array of two with wrong azp", expected: .audienceMismatch) { f in
            try f.token(
                claims: ValidatorCase.claims(f) {
                    $0["aud"] = [TokenFactory.clientID, "api"]
                    $0["azp"] = "api"
                })
        },
        ValidatorCase(name: "single aud with wrong azp", expected: .audienceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["azp"] = "other-client" })
        },
        ValidatorCase(name: "empty aud array", expected: .audienceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["aud"] = [String]() })
        },

        // Time: exp with skew, iat, nbf.
        ValidatorCase(name: "exp exactly at now - skew", expected: .expired) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = IDTokenValidatorTests.seconds - 60 })
        },
        ValidatorCase(name: "exp one second inside the skew", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = IDTokenValidatorTests.seconds - 59 })
        },
        ValidatorCase(name: "exp one second beyond the skew", expected: .expired) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = IDTokenValidatorTests.seconds - 61 })
        },
        ValidatorCase(name: "missing exp", expected: .missingClaim) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = nil })
        },
        ValidatorCase(name: "fractional exp in the future", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = Double(IDTokenValidatorTests.seconds) + 0.5 })
        },
        ValidatorCase(name: "iat exactly at now + skew", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iat"] = IDTokenValidatorTests.seconds + 60 })
        },
        ValidatorCase(name: "iat one second beyond now + skew", expected: .malformed) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iat"] = IDTokenValidatorTests.seconds + 61 })
        },
        ValidatorCase(name: "iat at now - skew (old but unexpired)", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iat"] = IDTokenValidatorTests.seconds - 60 })
        },
        ValidatorCase(name: "missing iat", expected: .malformed) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["iat"] = nil })
        },
        ValidatorCase(name: "nbf at now + skew", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["nbf"] = IDTokenValidatorTests.seconds + 60 })
        },
        ValidatorCase(name: "nbf one second beyond now + skew", expected: .malformed) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["nbf"] = IDTokenValidatorTests.seconds + 61 })
        },

        // nonce.
        ValidatorCase(name: "wrong nonce", expected: .nonceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["nonce"] = "replayed" })
        },
        ValidatorCase(name: "missing nonce when one was sent", expected: .nonceMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["nonce"] = nil })
        },
        ValidatorCase(
            name: "nonce present when none was sent", expected: nil,
            expecting: { $0.expectations(nonce: nil) },
            token: { f in try f.token(claims: f.standardClaims()) }
        ),

        // sub.
        ValidatorCase(name: "missing sub", expected: .missingClaim) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["sub"] = nil })
        },
        ValidatorCase(name: "empty sub", expected: .missingClaim) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["sub"] = "" })
        },
        ValidatorCase(name: "empty canonical_sub", expected: .missingClaim) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["canonical_sub"] = "" })
        },

        // at_hash.
        ValidatorCase(name: "wrong at_hash", expected: .accessTokenHashMismatch) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["at_hash"] = AccessTokenHash.compute(for: "other") })
        },
        ValidatorCase(name: "at_hash absent with an access token", expected: nil) { f in
            try f.token(claims: ValidatorCase.claims(f) { $0["at_hash"] = nil })
        },
        ValidatorCase(
            name: "at_hash present without an access token", expected: nil,
            expecting: { $0.expectations(accessToken: nil) },
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["at_hash"] = "not-checked" }) }
        ),

        // Order: the first failing check decides.
        ValidatorCase(name: "bad signature wins over wrong issuer", expected: .badSignature) { f in
            try f.token(
                claims: ValidatorCase.claims(f) { $0["iss"] = "x" }, signer: try TestKeys.required(TestKeys.attacker))
        },
        ValidatorCase(name: "iss wins over expired", expected: .issuerMismatch) { f in
            try f.token(
                claims: ValidatorCase.claims(f) {
                    $0["iss"] = "x"
                    $0["exp"] = 1
                })
        },
        ValidatorCase(name: "expired wins over nonce", expected: .expired) { f in
            try f.token(
                claims: ValidatorCase.claims(f) {
                    $0["exp"] = 1
                    $0["nonce"] = "x"
                })
        },
        ValidatorCase(name: "nonce wins over sub", expected: .nonceMismatch) { f in
            try f.token(
                claims: ValidatorCase.claims(f) {
                    $0["sub"] = nil
                    $0["nonce"] = "x"
                })
        },
        ValidatorCase(name: "sub wins over at_hash", expected: .missingClaim) { f in
            try f.token(
                claims: ValidatorCase.claims(f) {
                    $0["sub"] = nil
                    $0["at_hash"] = "x"
                })
        },
    ]

    @Test(arguments: cases)
    func table(_ row: ValidatorCase) throws {
        let factory = try Self.factory()
        let token = try row.token(factory)
        let keys = try row.keys(factory)
        let expecting = row.expecting(factory)
        if let expected = row.expected {
            #expect(throws: expected) {
                try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: Self.now)
            }
        } else {
            let verified = try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: Self.now)
            #expect(verified.claims.issuer == TokenFactory.issuer)
            #expect(verified.claims.audience.contains(TokenFactory.clientID))
        }
    }

    @Test func everyErrorCodeIsCoveredByTheTable() {
        let covered = Set(Self.cases.compactMap(\.expected).map(\.code))
        let signIn: Set = [
            "malformed", "missing_kid", "unknown_kid", "bad_signature", "iss_mismatch", "aud_mismatch", "expired",
            "nonce_mismatch", "missing_claim", "at_hash_mismatch",
        ]
        #expect(signIn.isSubset(of: covered))
    }

    @Test func verifiedClaimsCarryEveryField() throws {
        let factory = try Self.factory()
        let claims = ValidatorCase.claims(factory) {
            $0["aud"] = [TokenFactory.clientID, "api"]
            $0["azp"] = TokenFactory.clientID
            $0["nbf"] = Self.seconds - 10
            $0["canonical_sub"] = "canon-7"
            $0["is_canonical"] = false
            $0["linked_subs"] = ["old-1", "old-2"]
            $0["previously_anonymous"] = true
            $0["anonymous"] = false
        }
        let token = try factory.token(claims: claims)
        let verified = try IDTokenValidator.validate(
            token, keys: try ValidatorCase.providerKeys(factory), expecting: factory.expectations(), now: Self.now)
        let expected = IDTokenClaims(
            issuer: TokenFactory.issuer, subject: "user-1", audience: [TokenFactory.clientID, "api"],
            authorizedParty: TokenFactory.clientID, expiresAt: Date(timeIntervalSince1970: Double(Self.seconds + 3600)),
            issuedAt: Self.now, notBefore: Date(timeIntervalSince1970: Double(Self.seconds - 10)),
            nonce: TokenFactory.nonce, accessTokenHash: AccessTokenHash.compute(for: TokenFactory.accessToken),
            canonicalSubject: "canon-7", isCanonical: false, linkedSubjects: ["old-1", "old-2"],
            previouslyAnonymous: true, anonymous: false)
        #expect(verified.claims == expected)
        #expect(verified.claims.effectiveSubject == "canon-7")
        #expect(verified.keyID == "k1")
    }

    @Test func effectiveSubjectFallsBackToSub() throws {
        let factory = try Self.factory()
        let verified = try IDTokenValidator.validate(
            try factory.token(claims: factory.standardClaims()), keys: try ValidatorCase.providerKeys(factory),
            expecting: factory.expectations(), now: Self.now)
        #expect(verified.claims.effectiveSubject == "user-1")
        #expect(verified.claims.linkedSubjects.isEmpty)
    }

    @Test func customSkewMovesTheExpiryBoundary() throws {
        let factory = try Self.factory()
        let token = try factory.token(claims: ValidatorCase.claims(factory) { $0["exp"] = Self.seconds - 200 })
        var expecting = factory.expectations()
        expecting.skew = 300
        let keys = try ValidatorCase.providerKeys(factory)
        _ = try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: Self.now)
        expecting.skew = 0
        #expect(throws: IDTokenError.expired) {
            try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: Self.now)
        }
        expecting.skew = -.infinity
        #expect(throws: IDTokenError.expired) {
            try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: Self.now)
        }
    }

    @Test func errorDescriptionIsTheCode() {
        let all: [IDTokenError] = [
            .malformed, .missingKeyID, .unknownKeyID, .badSignature, .issuerMismatch, .audienceMismatch, .expired,
            .nonceMismatch, .missingClaim, .accessTokenHashMismatch, .subjectMismatch, .missingAuthTime, .authTimeTooOld,
            .acrMismatch,
        ]
        #expect(all.map(\.description) == all.map(\.code))
        #expect(Set(all.map(\.code)).count == all.count)
        #expect(IDTokenError.accessTokenHashMismatch.code == "at_hash_mismatch")
        #expect(IDTokenError.subjectMismatch.code == "sub_mismatch")
        #expect(IDTokenError.missingAuthTime.code == "missing_auth_time")
        #expect(IDTokenError.authTimeTooOld.code == "auth_time_too_old")
        #expect(IDTokenError.acrMismatch.code == "acr_mismatch")
    }
}

/// One key set shared by many concurrent validations: the cached backend keys are immutable and
/// safe to use from several threads at once.
@Suite struct IDTokenValidatorConcurrencyTests {
    @Test func concurrentValidationsShareOneKeySet() async throws {
        let factory = try IDTokenValidatorTests.factory()
        let keys = try ValidatorCase.providerKeys(factory)
        let good = try factory.token(claims: factory.standardClaims())
        let forged = try factory.token(claims: factory.standardClaims(), signer: try TestKeys.required(TestKeys.attacker))
        let expecting = factory.expectations()
        let now = IDTokenValidatorTests.now
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                let token = index.isMultiple(of: 2) ? good : forged
                group.addTask {
                    (try? IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: now)) != nil
                }
            }
            var accepted = 0
            for await outcome in group where outcome { accepted += 1 }
            return accepted
        }
        #expect(outcomes == 32)
    }
}
