import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A session whose tokens are sender-constrained with DPoP, end to end against a simulated
/// provider that checks every proof and demands its nonce.
@Suite("Session with DPoP", .timeLimit(.minutes(1)))
struct SessionDPoPTests {
    /// An environment whose session signs with `key` (a fresh one by default); `skew` moves the
    /// proofs' clock away from the provider's.
    private static func environment(
        key: P256PrivateKey? = nil, dpop: SimulatedProviderDPoP = SimulatedProviderDPoP(),
        skew: SharedValue<TimeInterval> = SharedValue(0)
    ) throws -> (SimulatedSessionEnvironment, DPoPKeyHolder) {
        var provider = SimulatedProviderConfiguration()
        provider.dpop = dpop
        let keys = DPoPKeyHolder(key: try key ?? P256PrivateKey.generate())
        let clock = TestClock()
        let env = try SimulatedSessionEnvironment(provider: provider, clock: clock) {
            $0.requestMiddleware = [DPoPMiddleware(keys: keys, now: { clock.wallClockNow().addingTimeInterval(skew.value) })]
        }
        return (env, keys)
    }

    @Test("sign-in binds the code and the refresh token to the key; each nonce demand costs one retry")
    func signInAndRefreshWithNonces() async throws {
        let (env, keys) = try Self.environment()
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        #expect(env.session.stage == .active)
        #expect(keys.accessTokenIsBound)
        // The first exchange had no nonce: refused once with use_dpop_nonce, then accepted.
        #expect(env.provider.requestCount(grantType: "authorization_code") == 2)

        _ = try await env.session.refresh()
        // The nonce from the exchange's answer is still current: one request.
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)

        env.provider.rotateDPoPNonce()
        _ = try await env.session.refresh()
        #expect(env.provider.requestCount(grantType: "refresh_token") == 3)
        #expect(env.session.stage == .active)
        try await env.finish()
    }

    @Test("many callers of a due token while the nonce is stale: one refresh request and one nonce retry, the same token presented")
    func concurrentCallersCostOneRefreshAndOneNonceRetry() async throws {
        let (env, _) = try Self.environment()
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        let presented = try #require(env.store.record.session?.refreshToken)
        env.provider.rotateDPoPNonce()
        env.clock.advance(by: .seconds(3700))
        env.provider.script(.slow(.seconds(2)), on: .token)
        let session = env.session
        let callers = 40
        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for _ in 0..<callers { group.addTask { try await session.validAccessToken() } }
            await env.advanceToNextSleeper()
            var all: [AccessToken] = []
            for try await token in group { all.append(token) }
            return all
        }
        #expect(tokens.count == callers)
        #expect(Set(tokens.map(\.secret)).count == 1)
        // The refused request and its one retry, both presenting the token the session held.
        #expect(env.provider.requestCount(grantType: "refresh_token") == 2)
        #expect(!env.provider.isRefreshTokenActive(presented))
        #expect(env.store.record.session?.refreshToken != presented)
        #expect(env.session.stage == .active)
        try await env.finish()
    }

    @Test("a copied refresh token is refused without its key, and with another key, and the session keeps it")
    func stolenRefreshToken() async throws {
        let (env, _) = try Self.environment()
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        let stolen = try #require(env.store.record.session?.refreshToken)
        let configuration = env.configuration.provider

        let bare = ProviderClient(configuration: configuration, transport: env.provider, now: { env.clock.wallClockNow() })
        do {
            _ = try await bare.refresh(stolen)
            Issue.record("a bound refresh token was accepted without a proof")
        } catch {
            #expect(error.oauthError == "invalid_dpop_proof")
        }
        let thief = ProviderClient(
            configuration: configuration, transport: env.provider,
            middleware: [
                DPoPMiddleware(keys: DPoPKeyHolder(key: try P256PrivateKey.generate()), now: { env.clock.wallClockNow() })
            ], now: { env.clock.wallClockNow() })
        // The thief's first request lacks the nonce; sent again with it, the token is refused as a
        // grant bound to another key.
        await #expect(throws: ProviderError.dpop(DPoPFailure(.useNonce))) { try await thief.refresh(stolen) }
        do {
            _ = try await thief.refresh(stolen)
            Issue.record("a refresh token bound to another key was accepted")
        } catch {
            #expect(error.oauthError == "invalid_grant")
        }
        #expect(env.provider.isRefreshTokenActive(stolen))
        _ = try await env.session.refresh()
        #expect(env.session.stage == .active)
        try await env.finish()
    }

    @Test("a proof the provider's clock refuses is a DPoP error that keeps the session")
    func clockRefusalKeepsTheSession() async throws {
        let skew = SharedValue<TimeInterval>(0)
        let (env, _) = try Self.environment(skew: skew)
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        let token = try #require(env.store.record.session?.refreshToken)
        skew.update { $0 = 600 }
        // Refused as a proof, not as a refresh token, and not retried after a backoff: the caller
        // gets the DPoP error at once; nothing is signed out, nothing revoked.
        let refused: SessionError
        do {
            _ = try await env.session.refresh()
            Issue.record("a refresh with a proof the provider's clock refuses succeeded")
            return
        } catch {
            refused = error
        }
        guard case .provider(let answer) = refused.kind else {
            Issue.record("the refusal is not the provider's answer: \(refused)")
            return
        }
        #expect(answer.isDPoPRefusal)
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(env.clock.sleeperCount == 0)
        #expect(env.session.stage == .active)
        #expect(env.store.record.session?.refreshToken == token)
        #expect(env.provider.isRefreshTokenActive(token))
        // The next call, with a proof the server's clock accepts, refreshes.
        skew.update { $0 = 0 }
        _ = try await env.session.refresh()
        #expect(env.session.stage == .active)
        #expect(env.store.record.session?.refreshToken != token)
        try await env.finish()
    }

    @Test("a code bound with dpop_jkt is refused to a proof of another key")
    func codeBoundToTheKey() async throws {
        let (env, keys) = try Self.environment()
        let configuration = env.configuration.provider
        func client(_ holder: DPoPKeyHolder) -> ProviderClient {
            ProviderClient(
                configuration: configuration, transport: env.provider,
                middleware: [DPoPMiddleware(keys: holder, now: { env.clock.wallClockNow() })], now: { env.clock.wallClockNow() })
        }
        let verifier = "verifier-0123456789-0123456789-0123456789-0123456789"
        let url = client(keys).authorizationURL(
            codeChallenge: PKCE.challenge(forVerifier: verifier), state: "s", nonce: "n")
        #expect(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "dpop_jkt" }?.value == keys.thumbprint)
        let callback = try env.provider.authorize(url, subject: "alice")
        let code = try #require(
            URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value)
        let other = client(DPoPKeyHolder(key: try P256PrivateKey.generate()))
        // Asked for the provider's nonce first; sent again with it, refused as a grant.
        await #expect(throws: ProviderError.dpop(DPoPFailure(.useNonce))) {
            try await other.exchangeCode(Secret(code), codeVerifier: Secret(verifier))
        }
        do {
            _ = try await other.exchangeCode(Secret(code), codeVerifier: Secret(verifier))
            Issue.record("a code bound to another key was exchanged")
        } catch {
            #expect(error.oauthError == "invalid_grant")
        }
    }

    @Test("a replayed proof is refused")
    func replayedProof() async throws {
        let (env, keys) = try Self.environment(dpop: SimulatedProviderDPoP(requiresNonce: false))
        let signer = try #require(keys.signer)
        let url = env.configuration.provider.tokenEndpoint
        let proof = try signer.proof(
            method: "POST", targetURI: try #require(DPoPTargetURI.normalized(url)),
            issuedAt: Int64(env.clock.wallClockNow().timeIntervalSince1970))
        let request = HTTPRequest(
            method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded"), ("DPoP", proof)],
            body: Data("grant_type=refresh_token&refresh_token=unknown&client_id=\(env.configuration.provider.clientID)".utf8))
        let first = try await env.provider.send(request)
        #expect(first.status == 400 && String(decoding: first.body, as: UTF8.self).contains("invalid_grant"))
        let second = try await env.provider.send(request)
        #expect(second.status == 400 && String(decoding: second.body, as: UTF8.self).contains("invalid_dpop_proof"))
    }
}
