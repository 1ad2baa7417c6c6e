import SessionKitJOSE
import Testing

@Suite struct PKCETests {
    static let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    @Test func generatedPairIsS256Consistent() throws {
        let pkce = try PKCE.generate()
        #expect(pkce.verifier.count == 43)
        #expect(pkce.verifier.allSatisfy { Self.alphabet.contains($0) })
        #expect(pkce.challenge == PKCE.challenge(forVerifier: pkce.verifier))
        #expect(pkce.challenge.count == 43)
        #expect(try Base64URL.decode(pkce.verifier).count == 32)
    }

    @Test func pairsAreFresh() throws {
        let verifiers = try (0..<32).map { _ in try PKCE.generate().verifier }
        #expect(Set(verifiers).count == verifiers.count)
    }

    @Test func descriptionNeverShowsTheVerifier() throws {
        let pkce = try PKCE.generate()
        var dumped = ""
        dump(pkce, to: &dumped)
        for text in [pkce.description, pkce.debugDescription, String(describing: pkce), "\(pkce)", dumped] {
            #expect(!text.contains(pkce.verifier))
        }
        #expect(pkce.description.contains(pkce.challenge))
    }

    @Test func randomTokens() throws {
        let state = try RandomToken.generate()
        #expect(state.count == 43)
        #expect(state.allSatisfy { Self.alphabet.contains($0) })
        #expect(try RandomToken.generate(byteCount: 16).count == 22)
        #expect(try RandomToken.generate() != RandomToken.generate())
        #expect(throws: CryptoError.invalidParameter) { try RandomToken.generate(byteCount: 15) }
        #expect(throws: CryptoError.invalidParameter) { try RandomToken.generate(byteCount: 1025) }
    }

    @Test func accessTokenHashMatchesOIDCExample() {
        // OpenID Connect Core 1.0, Appendix A.3/A.4 example access token and at_hash.
        #expect(AccessTokenHash.compute(for: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y") == "77QmUPtjPfzWtF2AnpK9RQ")
        #expect(AccessTokenHash.compute(for: "").count == 22)
    }

    @Test func expectationsNeverPrintTheAccessTokenOrNonce() {
        let expecting = IDTokenExpectations(
            issuer: "https://api.1pass.dev", clientID: "c", nonce: "nonce-secret-value", accessToken: "at-secret-value")
        var dumped = ""
        dump(expecting, to: &dumped)
        for text in [expecting.description, expecting.debugDescription, "\(expecting)", dumped] {
            #expect(!text.contains("at-secret-value"))
            #expect(!text.contains("nonce-secret-value"))
            #expect(text.contains("https://api.1pass.dev"))
        }
    }
}
