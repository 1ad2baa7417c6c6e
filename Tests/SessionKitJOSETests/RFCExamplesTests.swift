import Foundation
import SessionKitJOSE
import Testing

/// The example values printed in RFC 7515 and RFC 7636, from `../shared/vectors/rfc-examples.json`.
@Suite struct RFCExamplesTests {
    let examples: [String: Any]

    init() throws {
        examples = try TestVectors.json("rfc-examples.json")
    }

    private func section(_ name: String) throws -> [String: Any] {
        try #require(examples[name] as? [String: Any])
    }

    @Test func rfc7515AppendixA2SignatureVerifies() throws {
        let a2 = try section("rfc7515_a2")
        let jwk = try #require(a2["jwk"] as? [String: String])
        let keys = JWKS(keys: [JWK(kty: "RSA", kid: nil, n: jwk["n"], e: jwk["e"])])
        let token = try #require(a2["jws"] as? String)
        let jws = try CompactJWS.verifyRS256(token, keys: keys, allowMissingKeyID: true)
        #expect(jws.header.algorithm == "RS256")
        #expect(jws.header.keyID == nil)
        let payload = String(decoding: jws.payload, as: UTF8.self)
        #expect(payload.contains(#""iss":"joe""#))
    }

    @Test func rfc7515AppendixA2IsExpiredAsAnIDToken() throws {
        let a2 = try section("rfc7515_a2")
        let jwk = try #require(a2["jwk"] as? [String: String])
        let keys = JWKS(keys: [JWK(kty: "RSA", n: jwk["n"], e: jwk["e"])])
        let token = try #require(a2["jws"] as? String)
        let exp = try #require(a2["payload_exp"] as? Int)
        let expecting = IDTokenExpectations(issuer: "joe", clientID: "any", allowMissingKeyID: true)
        // The example has no aud, so at any time it fails at the audience check, before exp.
        #expect(throws: IDTokenError.audienceMismatch) {
            try IDTokenValidator.validate(
                token, keys: keys, expecting: expecting, now: Date(timeIntervalSince1970: Double(exp)))
        }
    }

    @Test func rfc7515AppendixA2TamperedPayloadFails() throws {
        let a2 = try section("rfc7515_a2")
        let jwk = try #require(a2["jwk"] as? [String: String])
        let keys = JWKS(keys: [JWK(kty: "RSA", n: jwk["n"], e: jwk["e"])])
        let token = try #require(a2["jws"] as? String)
        var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[1] = Base64URL.encode(Array(#"{"iss":"mallory"}"#.utf8))
        #expect(throws: IDTokenError.badSignature) {
            try CompactJWS.verifyRS256(parts.joined(separator: "."), keys: keys, allowMissingKeyID: true)
        }
    }

    @Test(arguments: ["rfc7515_a1_hs256", "rfc7515_a5_none"])
    func nonRS256ExamplesAreRejected(name: String) throws {
        let a2 = try section("rfc7515_a2")
        let jwk = try #require(a2["jwk"] as? [String: String])
        let keys = JWKS(keys: [JWK(kty: "RSA", n: jwk["n"], e: jwk["e"])])
        let token = try #require(try section(name)["jws"] as? String)
        let expecting = IDTokenExpectations(issuer: "joe", clientID: "any", allowMissingKeyID: true)
        let error = #expect(throws: IDTokenError.self) {
            try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: Date(timeIntervalSince1970: 0))
        }
        // HS256 parses and is refused by alg; "none" has an empty signature segment.
        #expect(error == .badSignature || error == .malformed)
        #expect(name != "rfc7515_a1_hs256" || error == .badSignature)
    }

    @Test func rfc7636AppendixBChallenge() throws {
        let b = try section("rfc7636_b")
        let octets = try #require(b["verifier_octets"] as? [Int]).map { UInt8($0) }
        let verifier = try #require(b["code_verifier"] as? String)
        let challenge = try #require(b["code_challenge"] as? String)
        #expect(Base64URL.encode(octets) == verifier)
        #expect(PKCE.challenge(forVerifier: verifier) == challenge)
    }
}
