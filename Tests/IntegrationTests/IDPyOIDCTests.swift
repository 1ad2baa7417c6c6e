import Foundation
import SessionKit
import SessionKitJOSE
import Testing

/// idpyoidc 5.0.0 (behind `Scripts/providers/idp_server.py`): a session whose tokens are
/// sender-constrained with DPoP (RFC 9449) at a real provider, and a confidential client
/// authenticating with `private_key_jwt` (RFC 7523) with keys read from PEM files.
///
/// What the provider checks itself and what its front end adds (the refresh token's key binding,
/// `ath` as base64url, `iat`, `jti`, the code's `dpop_jkt`) is listed in that script; the
/// client is the same one the simulated provider tests.
@Suite(
    .enabled(if: ProviderEnvironment.idpyoidc != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""), .serialized,
    .timeLimit(.minutes(1)))
struct IDPyOIDCTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.idpyoidc! }

    /// A harness whose session signs DPoP proofs with `keys`, and requires DPoP token responses.
    private func dpopHarness(_ keys: DPoPKeyHolder, user: String) async throws -> IntegrationHarness {
        let wallClock = OffsetWallClock()
        let harness = try await IntegrationHarness.make(environment, user: user) {
            $0.requestMiddleware = [DPoPMiddleware(keys: keys, requirement: .required, now: { wallClock.now() })]
        }
        return harness
    }

    @Test func discoveryAnnouncesDPoPAndTheClientAuthenticationMethods() async throws {
        let harness = try await IntegrationHarness.make(environment)
        defer { harness.cleanUp() }
        let provider = harness.configuration.provider
        #expect(provider.issuer == environment.issuer)
        #expect(provider.tokenEndpointAuthMethods?.contains("private_key_jwt") == true)
        #expect(provider.tokenEndpointAuthMethods?.contains("none") == true)
        let discovery = try await harness.providerTransport.send(
            HTTPRequest(method: "GET", url: URL(string: environment.issuer + "/.well-known/openid-configuration")!))
        let document = try #require(try JSONSerialization.jsonObject(with: discovery.body) as? [String: Any])
        #expect((document["dpop_signing_alg_values_supported"] as? [String])?.contains("ES256") == true)
        #expect(document["registration_endpoint"] as? String == environment.registrationEndpoint?.absoluteString)
    }

    @Test func signInRefreshAndUserInfoAreBoundToTheSessionsKey() async throws {
        let keys = DPoPKeyHolder(key: try P256PrivateKey.generate())
        let harness = try await dpopHarness(keys, user: "dpop")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        let recorder = TransitionRecorder()
        session.addObserver { recorder.record($0) }

        let identity = try await session.signIn()
        #expect(identity.subject.count == 64)
        #expect(keys.accessTokenIsBound)
        let first = try await session.validAccessToken()
        #expect(Self.boundThumbprint(first.secret) == keys.thumbprint)
        // A bound access token without its proof is refused at UserInfo.
        #expect(try await harness.userInfoStatus(first.secret) == 401)

        let refreshed = try await session.refresh()
        #expect(refreshed.secret != first.secret)
        #expect(Self.boundThumbprint(refreshed.secret) == keys.thumbprint)
        #expect(harness.transport.refreshRequests.count == 1)

        // UserInfo with `Authorization: DPoP` and a proof carrying `ath`.
        let userInfo = try #require(try await session.fetchUserInfo())
        #expect(userInfo.subject == identity.subject)
        #expect(userInfo.profile.preferredUsername == harness.user)
        #expect(harness.transport.log.contains { $0.url == environment.userInfoEndpoint })

        try await session.signOut()
        #expect(session.stage == .signedOut)
        #expect(recorder.reasons.contains(.revocationConfirmed))
    }

    @Test func aRefreshTokenReplayedWithoutTheKeyOrWithAnotherKeyIsRefused() async throws {
        let keys = DPoPKeyHolder(key: try P256PrivateKey.generate())
        let harness = try await dpopHarness(keys, user: "stolen")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let stolen = try #require(try await harness.storedSession()?.refreshToken)

        do {
            _ = try await harness.outOfBandClient().refresh(stolen)
            Issue.record("a DPoP-bound refresh token was accepted without a proof")
        } catch {
            #expect(error.oauthError == "invalid_grant")
        }
        let thief = ProviderClient(
            configuration: harness.configuration.provider, transport: harness.providerTransport,
            middleware: [
                DPoPMiddleware(keys: DPoPKeyHolder(key: try P256PrivateKey.generate()), requirement: .whenIssued, now: { Date() })
            ],
            now: { Date() })
        do {
            _ = try await thief.refresh(stolen)
            Issue.record("a refresh token bound to another key was accepted")
        } catch {
            #expect(error.oauthError == "invalid_grant")
        }
        // Neither attempt spent it: the session, with its key, still refreshes.
        let refreshed = try await session.refresh()
        #expect(Self.boundThumbprint(refreshed.secret) == keys.thumbprint)
        #expect(session.stage == .active)
    }

    @Test func privateKeyJWTWithAnRS256KeyFromAPKCS8File() async throws {
        let client = try #require(environment.keyClient)
        try await signInAndRefresh(keyFile: client.rsaKeyFile, keyID: client.rsaKeyID, algorithm: .rs256, audience: .tokenEndpoint)
    }

    @Test func privateKeyJWTWithAnES256KeyFromASEC1File() async throws {
        let client = try #require(environment.keyClient)
        try await signInAndRefresh(keyFile: client.ecKeyFile, keyID: client.ecKeyID, algorithm: .es256, audience: .issuer)
    }

    @Test func aWrongKeyIsRefusedAsInvalidClient() async throws {
        let client = try #require(environment.keyClient)
        var confidential = environment
        confidential.clientID = client.id
        // The registered kid, another key.
        let wrong = ClientAssertionKey.es256(try P256PrivateKey.generate(), keyID: client.ecKeyID)
        let harness = try await IntegrationHarness.make(confidential, user: "wrong-key") { $0.clientAuthentication = .privateKeyJWT(wrong) }
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        do {
            try await session.signIn()
            Issue.record("an assertion signed with another key was accepted")
        } catch {
            #expect(error.providerError?.status == 401)
            #expect(error.providerError?.oauthError == "invalid_client")
        }
        #expect(session.stage == .signedOut)
    }

    /// The README's `private_key_jwt` command line: the built walkthrough reads the client's key
    /// from its PEM file, signs in over a loopback redirect, refreshes and revokes.
    @Test func theWalkthroughAuthenticatesWithAPrivateKeyFromAFile() async throws {
        let client = try #require(environment.keyClient)
        var confidential = environment
        confidential.clientID = client.id
        confidential.revocationEndpoint = URL(string: environment.issuer + "/revocation")
        try await DjangoOAuthToolkitTests.loopbackWalkthrough(
            confidential, port: nil,
            extraArguments: ["--client-auth", "private_key_jwt", "--client-key-file", client.ecKeyFile, "--client-key-id", client.ecKeyID])
    }

    @Test func theWalkthroughTakesTheDPoPPolicyAndBindsItsSession() async throws {
        var dpop = environment
        dpop.revocationEndpoint = URL(string: environment.issuer + "/revocation")
        try await DjangoOAuthToolkitTests.loopbackWalkthrough(
            dpop, port: nil, extraArguments: ["--dpop", "required"],
            expecting: ["the access token is DPoP-bound to the session's key", "refreshed; the new access token expires"])
    }

    private func signInAndRefresh(
        keyFile: String, keyID: String, algorithm: JWSAlgorithm, audience: ClientAssertionAudience
    ) async throws {
        let client = try #require(environment.keyClient)
        var confidential = environment
        confidential.clientID = client.id
        let pem = try #require(FileManager.default.contents(atPath: keyFile))
        let key = try ClientAssertionKey(pemBytes: [UInt8](pem), keyID: keyID)
        #expect(key.algorithm == algorithm)
        let authentication = ClientAuthentication.privateKeyJWT(key, audience: audience)
        let harness = try await IntegrationHarness.make(confidential, user: "key-\(algorithm.rawValue.lowercased())") {
            $0.clientAuthentication = authentication
        }
        defer { harness.cleanUp() }
        try authentication.check(against: harness.configuration.provider)
        let session = harness.makeSession()
        let recorder = TransitionRecorder()
        session.addObserver { recorder.record($0) }

        let identity = try await session.signIn()
        #expect(identity.audience == [client.id])
        let first = try await session.validAccessToken()
        let refreshed = try await session.refresh()
        #expect(refreshed.secret != first.secret)
        #expect(try await harness.userInfoStatus(refreshed.secret) == 200)
        // Revocation authenticates with an assertion too.
        try await session.signOut()
        #expect(session.stage == .signedOut)
        #expect(recorder.reasons.contains(.revocationConfirmed))
    }

    /// The `cnf.jkt` of a JWT access token, read without verifying.
    private static func boundThumbprint(_ token: Secret) -> String? {
        let parts = token.value.split(separator: ".")
        guard parts.count == 3, let payload = try? Base64URL.decode(parts[1]),
            let claims = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any]
        else { return nil }
        return (claims["cnf"] as? [String: Any])?["jkt"] as? String
    }
}
