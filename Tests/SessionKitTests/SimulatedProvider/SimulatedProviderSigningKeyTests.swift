import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@Suite("Simulated provider: signing keys")
struct SimulatedProviderSigningKeyTests {
    @Test func rotationPublishesANewKidAndKeepsTheOldOneForTheGrace() async throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(signingKeyGracePeriod: .seconds(3600)))
        let before = try await fixture.signIn()
        #expect(fixture.provider.publishedKeyIDs == ["sim-key-1"])

        let newKeyID = try fixture.provider.rotateSigningKey()
        #expect(newKeyID == "sim-key-2")
        #expect(fixture.provider.currentKeyID == "sim-key-2")
        #expect(fixture.provider.publishedKeyIDs == ["sim-key-2", "sim-key-1"])

        let keys = try await fixture.jwks()
        #expect(keys.keys.compactMap(\.kid) == ["sim-key-2", "sim-key-1"])
        let after = try ProviderFixture.tokens(try await fixture.refresh(before.refreshToken))
        let verifiedAfter = try fixture.validate(after.idToken, keys: keys, nonce: nil)
        #expect(verifiedAfter.keyID == "sim-key-2")
        // The old token still verifies while its key is published.
        _ = try fixture.validate(before.idToken, keys: keys)

        fixture.clock.advance(by: .seconds(3600))
        #expect(fixture.provider.publishedKeyIDs == ["sim-key-2"])
        let laterKeys = try await fixture.jwks()
        #expect(throws: IDTokenError.unknownKeyID) { try fixture.validate(before.idToken, keys: laterKeys) }
    }

    @Test func rotationWithoutGraceDropsTheOldKeyAtOnce() async throws {
        let fixture = try ProviderFixture()
        let before = try await fixture.signIn()
        try fixture.provider.rotateSigningKey(retainPreviousFor: .zero)
        #expect(fixture.provider.publishedKeyIDs == ["sim-key-2"])
        let keys = try await fixture.jwks()
        #expect(throws: IDTokenError.unknownKeyID) { try fixture.validate(before.idToken, keys: keys) }
    }

    @Test func rotatedKeysAreDistinctKeys() async throws {
        let fixture = try ProviderFixture()
        let token = try fixture.provider.signedIDToken(subject: "alice")
        try fixture.provider.rotateSigningKey(retainPreviousFor: .zero)
        try fixture.provider.rotateSigningKey(retainPreviousFor: .zero)
        #expect(fixture.provider.currentKeyID == "sim-key-3")
        // Re-labelling is not enough: the new key must not verify the first key's signature.
        let forged = JWKS(
            keys: try await fixture.jwks().keys.map { key in
                var relabelled = key
                relabelled.kid = "sim-key-1"
                return relabelled
            })
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validate(
                token, keys: forged, expecting: fixture.expectations(nonce: nil), now: fixture.clock.wallClockNow())
        }
    }

    @Test func signedIDTokenMintsVerifiableTokensForVerifierTests() async throws {
        let fixture = try ProviderFixture()
        let token = try fixture.provider.signedIDToken(subject: "carol", nonce: "n", accessToken: "at-1")
        let claims = try IDTokenValidator.validate(
            token, keys: try await fixture.jwks(), expecting: fixture.expectations(nonce: "n", accessToken: Secret("at-1")),
            now: fixture.clock.wallClockNow()
        ).claims
        #expect(claims.subject == "carol")
        let tampered = try fixture.provider.signedIDToken(subject: "carol", tampering: .badSignature)
        let keys = try await fixture.jwks()
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validate(
                tampered, keys: keys, expecting: fixture.expectations(nonce: nil),
                now: fixture.clock.wallClockNow())
        }
    }

    @Test func sharedKeysAreGeneratedOnce() throws {
        let first = try SimulatedProviderKeys.shared(count: 2)
        let second = try SimulatedProviderKeys.shared(count: 2)
        #expect(first.map { $0.publicJWK(keyID: "k") } == second.map { $0.publicJWK(keyID: "k") })
        #expect(first[0].publicJWK(keyID: "k") != first[1].publicJWK(keyID: "k"))
        let more = try SimulatedProviderKeys.shared(count: SimulatedProviderKeys.poolSize + 1)
        let jwks = more.map { $0.publicJWK(keyID: "k") }
        #expect(Array(jwks.prefix(2)) == first.map { $0.publicJWK(keyID: "k") })
        #expect(Set(jwks.map { $0.n ?? "" }).count == SimulatedProviderKeys.poolSize + 1)
    }
}
