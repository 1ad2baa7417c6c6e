import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A provider that signs its id_tokens with ES256, end to end through a session.
@Suite("Session with ES256 id_tokens")
struct SessionES256Tests {
    @Test("a session signs in and refreshes with ES256 id_tokens when the configuration expects ES256")
    func signInAndRefresh() async throws {
        let env = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(idTokenSigningAlgorithm: .es256))
        #expect(env.configuration.provider.idTokenSigningAlgorithms == [.es256])
        env.presenter.enqueue(.approve(subject: "alice"))

        let identity = try await env.session.signIn()
        #expect(identity.subject == "alice")
        #expect(identity.source == .idToken)
        #expect(env.session.stage == .active)
        let idToken = try #require(env.store.record.session?.idToken)
        #expect(try CompactJWS.decode(idToken.value).header.algorithm == "ES256")

        let before = try #require(env.store.record.session?.rotation)
        _ = try await env.session.refresh()
        #expect(env.store.record.session?.rotation == before + 1)
        let refreshed = try #require(env.store.record.session?.idToken)
        #expect(refreshed != idToken)
        #expect(try CompactJWS.decode(refreshed.value).header.algorithm == "ES256")
        #expect(env.session.identity?.subject == "alice")
    }

    @Test("a session that expects RS256 only refuses an ES256 id_token as a bad signature")
    func algorithmNotExpected() async throws {
        let env = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(idTokenSigningAlgorithm: .es256)) {
            $0.provider.idTokenSigningAlgorithms = [.rs256]
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        await #expect(throws: SessionError.verificationFailed(.badSignature)) { try await env.session.signIn() }
        #expect(env.session.stage == .signedOut)
        #expect(env.store.record.session == nil)
    }

    @Test("the simulated provider publishes a P-256 key and lists ES256 in its discovery document")
    func discoveryAndKeys() async throws {
        let env = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(idTokenSigningAlgorithm: .es256))
        let discovered = try await ProviderConfiguration.discover(
            issuer: env.configuration.provider.issuer, clientID: env.configuration.provider.clientID,
            redirectURI: env.configuration.provider.redirectURI, transport: env.provider)
        #expect(discovered.idTokenSigningAlgorithms == [.es256])
        let response = try await env.provider.send(HTTPRequest(method: "GET", url: env.configuration.provider.jwksURI))
        let keys = try JWKS(jsonData: [UInt8](response.body))
        #expect(keys.verificationKeyCount(for: .es256) == 1)
        #expect(keys.verificationKeyCount(for: .rs256) == 0)
        // A rotation makes another P-256 key.
        let next = try env.provider.rotateSigningKey(retainPreviousFor: .zero)
        let rotated = try await env.provider.send(HTTPRequest(method: "GET", url: env.configuration.provider.jwksURI))
        let rotatedKeys = try JWKS(jsonData: [UInt8](rotated.body))
        #expect(rotatedKeys.p256VerificationKey(forKeyID: next) != nil)
        #expect(rotatedKeys.keys.first?.x != keys.keys.first?.x)
    }
}
