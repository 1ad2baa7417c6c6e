import Foundation
import SessionKitJOSE
import Testing

/// Signed UserInfo responses (OpenID Connect Core §5.3.2) and aggregated and distributed claims
/// (§5.6.2).
@Suite struct UserInfoSignedTests {
    private static let issuer = "https://op.example.com"
    private static let clientID = "rp-client"
    private let expecting = UserInfoExpectations(issuer: issuer, clientID: clientID)

    private func sign(_ claims: [String: Any], key: RSAPrivateKey, keyID: String? = "k1") throws -> String {
        try CompactJWS.signRS256(payload: Array(try JSONSerialization.data(withJSONObject: claims)), keyID: keyID, key: key)
    }

    private func keys() throws -> JWKS {
        JWKS(keys: [try TestKeys.required(TestKeys.provider).publicJWK(keyID: "k1")])
    }

    private func decodeJWT(_ token: String, contentType: String = "application/jwt") throws(UserInfoError) -> UserInfo {
        let keys = (try? keys()) ?? JWKS(keys: [])
        return try UserInfo.decode(Array(token.utf8), contentType: contentType, keys: keys, expecting: expecting, expectedSubject: "u1")
    }

    @Test("Core §5.3.2: a signed UserInfo response is verified (signature, iss, aud) and then read")
    func signedResponse() throws {
        let key = try TestKeys.required(TestKeys.provider)
        let token = try sign(["sub": "u1", "iss": Self.issuer, "aud": Self.clientID, "email": "u1@example.com"], key: key)
        let info = try decodeJWT(token, contentType: "application/jwt; charset=utf-8")
        #expect(info.isSigned)
        #expect(info.profile.email == "u1@example.com")
    }

    @Test("Core §5.3.2: a signed UserInfo response with a bad signature, wrong iss, wrong aud or another sub is refused")
    func signedResponseRefusals() throws {
        let key = try TestKeys.required(TestKeys.provider)
        let attacker = try TestKeys.required(TestKeys.attacker)
        let good: [String: Any] = ["sub": "u1", "iss": Self.issuer, "aud": [Self.clientID, "other"]]
        #expect(try decodeJWT(try sign(good, key: key)).isSigned)
        #expect(throws: UserInfoError.badSignature) { try decodeJWT(try sign(good, key: attacker)) }
        #expect(throws: UserInfoError.unknownKey) { try decodeJWT(try sign(good, key: key, keyID: "k9")) }
        #expect(throws: UserInfoError.issuerMismatch) {
            try decodeJWT(try sign(good.merging(["iss": "https://evil.example"]) { $1 }, key: key))
        }
        #expect(throws: UserInfoError.issuerMismatch) { try decodeJWT(try sign(["sub": "u1", "aud": Self.clientID], key: key)) }
        #expect(throws: UserInfoError.audienceMismatch) {
            try decodeJWT(try sign(good.merging(["aud": "someone-else"]) { $1 }, key: key))
        }
        #expect(throws: UserInfoError.subjectMismatch) { try decodeJWT(try sign(good.merging(["sub": "u2"]) { $1 }, key: key)) }
        // An encrypted (JWE, five parts) response is not handled.
        #expect(throws: UserInfoError.malformed) { try decodeJWT("a.b.c.d.e") }
    }

    @Test("a signed response is never read as JSON, and the key-less decoder refuses it")
    func keylessDecoderRefusesJWT() throws {
        let token = try sign(["sub": "u1", "iss": Self.issuer, "aud": Self.clientID], key: try TestKeys.required(TestKeys.provider))
        #expect(throws: UserInfoError.malformed) { try UserInfo.decode(Array(token.utf8), expectedSubject: "u1") }
    }

    @Test("Core §5.6.2: aggregated claims signed by the issuer are verified; from another provider they are unverified")
    func aggregatedClaims() throws {
        let key = try TestKeys.required(TestKeys.provider)
        let other = try TestKeys.required(TestKeys.attacker)
        let fromIssuer = try sign(["iss": Self.issuer, "address": ["country": "DE"]], key: key)
        let fromOther = try sign(["iss": "https://bank.example", "payment_info": "Some Card"], key: other, keyID: "bank-1")
        let body: [String: Any] = [
            "sub": "u1", "name": "Jane",
            "_claim_names": ["address": "src1", "payment_info": "src2", "shipping_address": "src3", "credit_score": "src3"],
            "_claim_sources": [
                "src1": ["JWT": fromIssuer], "src2": ["JWT": fromOther],
                "src3": ["endpoint": "https://bank.example/claims", "access_token": "ksj3n283dke"],
            ],
        ]
        let json = try JSONSerialization.data(withJSONObject: body)
        let info = try UserInfo.decode(
            Array(json), contentType: "application/json", keys: try keys(), expecting: expecting, expectedSubject: "u1")
        #expect(!info.isSigned)
        #expect(info.additionalClaims["_claim_names"] == nil && info.additionalClaims["_claim_sources"] == nil)
        guard case .verified(let verified)? = info.aggregatedClaims["src1"] else {
            Issue.record("the issuer's aggregated claims were not verified")
            return
        }
        #expect(verified.claimNames == ["address"])
        #expect(verified.claims["address"] == .object(["country": .string("DE")]))
        guard case .unverified(let unverified)? = info.aggregatedClaims["src2"] else {
            Issue.record("another provider's aggregated claims were not typed unverified")
            return
        }
        #expect(unverified.claimedIssuer == "https://bank.example")
        #expect(unverified.claims["payment_info"] == .string("Some Card"))
        let distributed = try #require(info.distributedClaims["src3"])
        #expect(distributed.claimNames == ["credit_score", "shipping_address"])
        #expect(distributed.endpoint == "https://bank.example/claims")
        #expect(distributed.accessToken == "ksj3n283dke")
        var dumped = ""
        dump(distributed, to: &dumped)
        #expect(!"\(distributed)".contains("ksj3n283dke") && !dumped.contains("ksj3n283dke"))
    }

    @Test("Core §5.6.2: aggregated claims that name the issuer but do not verify refuse the whole answer")
    func forgedIssuerAggregatedClaims() throws {
        let forged = try sign(["iss": Self.issuer, "address": "x"], key: try TestKeys.required(TestKeys.attacker))
        let body: [String: Any] = ["sub": "u1", "_claim_names": ["address": "src1"], "_claim_sources": ["src1": ["JWT": forged]]]
        let json = try JSONSerialization.data(withJSONObject: body)
        #expect(throws: UserInfoError.badSignature) {
            try UserInfo.decode(Array(json), contentType: nil, keys: try keys(), expecting: expecting, expectedSubject: "u1")
        }
        // Without keys (the key-less decoder) the same claims are only ever unverified.
        let keyless = try UserInfo.decode(Array(json), expectedSubject: "u1")
        guard case .unverified? = keyless.aggregatedClaims["src1"] else {
            Issue.record("claims were typed verified without keys")
            return
        }
    }

    @Test("claim sources of the wrong shape are malformed")
    func malformedSources() throws {
        for body in [
            #"{"sub":"u1","_claim_names":{"a":"s"}}"#, #"{"sub":"u1","_claim_names":{"a":"s"},"_claim_sources":{}}"#,
            #"{"sub":"u1","_claim_names":{"a":1},"_claim_sources":{"s":{"endpoint":"https://x"}}}"#,
            #"{"sub":"u1","_claim_names":{"a":"s"},"_claim_sources":{"s":{"JWT":"not-a-jwt"}}}"#,
            #"{"sub":"u1","_claim_names":{"a":"s"},"_claim_sources":{"s":{"other":1}}}"#,
        ] {
            #expect(throws: UserInfoError.malformed) { try UserInfo.decode(Array(body.utf8), expectedSubject: "u1") }
        }
    }
}
