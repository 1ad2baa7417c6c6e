import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension Scenario {
    /// A provider that binds its tokens to the session's key, demands its nonce, and serves a
    /// resource that checks DPoP.
    static var dpopProvider: SimulatedProviderConfiguration {
        var provider = SimulatedProviderConfiguration()
        provider.dpop = SimulatedProviderDPoP()
        provider.resourceServer = SimulatedResourceServer()
        return provider
    }

    static let dpop = Scenario(
        name: "dpop",
        summary: "DPoP: sign-in and refresh bound to the session's key, a resource call with a nonce retry",
        provider: dpopProvider, signsWithDPoP: true
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        say.note("app calls signIn(); the session's key signs a proof for every token request", at: env.clock.wallClockNow())
        try await env.session.signIn()
        say.note(
            "code exchanged in \(env.provider.requestCount(grantType: "authorization_code")) requests "
                + "(the provider demanded its nonce once); the tokens are bound to the key",
            at: env.clock.wallClockNow())
        env.clock.advance(by: .seconds(3540))
        env.provider.rotateDPoPNonce()
        say.note("59 minutes later, with the provider's nonce rotated, the app asks for a token", at: env.clock.wallClockNow())
        _ = try await env.session.validAccessToken()
        say.note(
            "refreshed in \(env.provider.requestCount(grantType: "refresh_token")) requests: the refusal carried the new nonce, "
                + "the same refresh token went again with a fresh proof",
            at: env.clock.wallClockNow())
        env.provider.demandResourceNonce()
        say.note("the app sends GET /v1/me through session.send(_:); the resource demands a nonce of its own", at: env.clock.wallClockNow())
        let refreshes = env.provider.requestCount(grantType: "refresh_token")
        let response = try await env.session.send(URLRequest(url: env.provider.configuration.resourceServer!.url))
        say.note(
            "the resource answered \(response.status) \(String(decoding: response.body, as: UTF8.self)) after "
                + "\(env.provider.resourceRequestCount) requests (one use_dpop_nonce retry), "
                + "\(env.provider.requestCount(grantType: "refresh_token") - refreshes) refreshes",
            at: env.clock.wallClockNow())
        let again = try await env.session.send(URLRequest(url: env.provider.configuration.resourceServer!.url))
        say.note(
            "the next call answered \(again.status) in one request (\(env.provider.resourceRequestCount) in all): "
                + "the resource's nonce was kept for its origin",
            at: env.clock.wallClockNow())
    }

    static let stolenRefreshToken = Scenario(
        name: "stolen-refresh-token",
        summary: "a refresh token copied off the device is refused without its key; the session keeps working",
        provider: dpopProvider, signsWithDPoP: true
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let stolen = try env.store.record.session?.refreshToken ?? { throw ScenarioFailure("no refresh token was stored") }()
        let configuration = env.configuration.provider
        say.note("an attacker copies the refresh token out of the store, but not the key", at: env.clock.wallClockNow())
        let bare = ProviderClient(configuration: configuration, transport: env.provider, now: { env.clock.wallClockNow() })
        do throws(ProviderError) {
            _ = try await bare.refresh(stolen)
            say.note("unexpected: the provider accepted the token without a proof", at: env.clock.wallClockNow())
        } catch {
            say.note("presented without a proof: \(error.oauthError ?? "refused")", at: env.clock.wallClockNow())
        }
        let thief = ProviderClient(
            configuration: configuration, transport: env.provider,
            middleware: [
                DPoPMiddleware(keys: DPoPKeyHolder(key: try P256PrivateKey.generate()), now: { env.clock.wallClockNow() })
            ], now: { env.clock.wallClockNow() })
        // The provider asks for its nonce first (the middleware says so and resends nothing), then
        // refuses the token sent once more with it.
        for attempt in ["presented with a proof of the attacker's own key", "sent once more with the provider's nonce"] {
            do throws(ProviderError) {
                _ = try await thief.refresh(stolen)
                say.note("unexpected: the provider accepted the token with another key's proof", at: env.clock.wallClockNow())
                break
            } catch {
                let answer = if case .dpop(let failure) = error { "\(failure.code)" } else { error.oauthError ?? "refused" }
                say.note("\(attempt): \(answer)", at: env.clock.wallClockNow())
                guard case .dpop(let failure) = error, failure.code == .useNonce else { break }
            }
        }
        say.note("the provider still holds the token active: \(env.provider.isRefreshTokenActive(stolen))", at: env.clock.wallClockNow())
        _ = try await env.session.refresh()
        say.note("the app's own refresh, with the key, succeeds; stage \(env.session.stage)", at: env.clock.wallClockNow())
    }
}

/// A scenario that could not go on; its message names no secret.
struct ScenarioFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
