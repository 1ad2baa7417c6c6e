import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A JWS without `kid` (OpenID Connect Core §10.1): accepted from a discovered provider when the
/// key set holds exactly one key for its `alg`, refused with `missing_kid` when it holds several,
/// and always refused on the 1pass.dev profile.
@Suite("id_tokens without kid")
struct SessionKeyIDPolicyTests {
    @Test("discovery allows a missing kid; the 1pass.dev profile and explicit endpoints do not")
    func discoveryTurnsThePolicyOn() async throws {
        let env = try SimulatedSessionEnvironment()
        let provider = env.configuration.provider
        #expect(provider.allowsMissingKeyID == false)
        let discovered = try await ProviderConfiguration.discover(
            issuer: provider.issuer, clientID: provider.clientID, redirectURI: provider.redirectURI, transport: env.provider)
        #expect(discovered.allowsMissingKeyID)
        let onePass = try ProviderConfiguration.onePass(clientID: "c", redirectURI: URL(string: "com.example.app://cb")!)
        #expect(onePass.allowsMissingKeyID == false)
    }

    @Test("a discovered provider with one signing key: an id_token without kid signs in (Core §10.1)")
    func singleKeyAccepted() async throws {
        let env = try SimulatedSessionEnvironment { $0.provider.allowsMissingKeyID = true }
        env.provider.script(.tamperedIDToken(.noKeyID), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await env.session.signIn()
        #expect(identity.subject == "alice")
        let idToken = try #require(env.store.record.session?.idToken)
        #expect(try CompactJWS.decode(idToken.value).header.keyID == nil)
        try await env.finish()
    }

    @Test("a discovered provider with one ES256 key: an ES256 id_token without kid signs in (Core §10.1)")
    func singleP256KeyAccepted() async throws {
        let env = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(idTokenSigningAlgorithm: .es256)) {
            $0.provider.allowsMissingKeyID = true
        }
        env.provider.script(.tamperedIDToken(.noKeyID), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        #expect(try await env.session.signIn().subject == "alice")
        try await env.finish()
    }

    @Test("a discovered provider with two signing keys: an id_token without kid is refused as missing_kid")
    func severalKeysRefused() async throws {
        let env = try SimulatedSessionEnvironment { $0.provider.allowsMissingKeyID = true }
        _ = try env.provider.rotateSigningKey(retainPreviousFor: .seconds(3600))
        #expect(env.provider.publishedKeyIDs.count == 2)
        env.provider.script(.tamperedIDToken(.noKeyID), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        await #expect(throws: SessionError.verificationFailed(.missingKeyID)) { try await env.session.signIn() }
        #expect(env.session.stage == .signedOut)
        #expect(env.store.record.session == nil)
    }

    @Test("the 1pass.dev profile refuses an id_token without kid even with one signing key")
    func onePassProfileRefuses() async throws {
        let env = try SimulatedSessionEnvironment()
        env.provider.script(.tamperedIDToken(.noKeyID), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        await #expect(throws: SessionError.verificationFailed(.missingKeyID)) { try await env.session.signIn() }
        #expect(env.store.record.session == nil)
    }

    @Test("the session-wide switch allows a missing kid on the 1pass.dev profile too")
    func sessionSwitch() async throws {
        let env = try SimulatedSessionEnvironment { $0.allowMissingKeyID = true }
        #expect(env.configuration.provider.allowsMissingKeyID == false)
        env.provider.script(.tamperedIDToken(.noKeyID), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        #expect(try await env.session.signIn().subject == "alice")
        try await env.finish()
    }
}
