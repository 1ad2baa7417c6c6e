import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session on a device whose clock is ten minutes off the provider's, either way: the provider's
/// `Date` headers tell the session its time, and proofs and id_tokens are judged on it.
@Suite("Session on the provider's clock", .timeLimit(.minutes(1)))
struct SessionServerClockTests {
    /// An environment whose provider's clock is `providerAhead` ahead of the device's, with DPoP
    /// (a nonce demanded, proofs within 60 s) when `dpop` is set.
    private static func environment(
        providerAhead: Duration, dpop: Bool = true, bound: Duration = .seconds(3600)
    ) throws -> SimulatedSessionEnvironment {
        var provider = SimulatedProviderConfiguration()
        if dpop { provider.dpop = SimulatedProviderDPoP() }
        provider.resourceServer = SimulatedResourceServer()
        let keys = DPoPKeyHolder(key: try P256PrivateKey.generate())
        let clock = TestClock()
        let env = try SimulatedSessionEnvironment(provider: provider, clock: clock) {
            if dpop { $0.requestMiddleware = [DPoPMiddleware(keys: keys, now: { clock.wallClockNow() })] }
            $0.serverClockBound = bound
        }
        env.provider.moveClock(by: providerAhead)
        return env
    }

    @Test(
        "sign-in, refresh and a resource call succeed with the device ten minutes off, and proofs are accepted",
        arguments: [Duration.seconds(600), .seconds(-600)])
    func deviceClockOff(providerAhead: Duration) async throws {
        let env = try Self.environment(providerAhead: providerAhead)
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        #expect(env.session.stage == .active)
        let estimate = try #require(env.session.serverClock.latestEstimate)
        let expected = Double(providerAhead.components.seconds)
        #expect(abs(estimate.offset - expected) <= 1)
        #expect(estimate.isApplied)
        // The first proof was judged on the device's clock and refused; the refusal's Date
        // corrected it (one retry), then the nonce demand cost its one retry.
        #expect(env.provider.requestCount(grantType: "authorization_code") == 3)

        _ = try await env.session.refresh()
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(env.session.stage == .active)

        env.provider.demandResourceNonce()
        let response = try await env.session.send(URLRequest(url: URL(string: "https://api.sim.1pass.test/v1/me")!))
        #expect(response.status == 200)
        #expect(env.provider.resourceRequestCount == 2)
        try await env.finish()
    }

    @Test("a provider whose clock moves mid-session costs one refused proof, whose Date corrects the next; the session stays")
    func clockMovesMidSession() async throws {
        let env = try Self.environment(providerAhead: .zero)
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        #expect(env.session.serverClock.offset == 0)
        env.provider.moveClock(by: .seconds(-600))
        #expect(env.provider.clockOffset == .seconds(-600))
        let before = try #require(env.store.record.session?.refreshToken)
        _ = try await env.session.refresh()
        // Refused for its iat, sent once more with the corrected time, accepted.
        #expect(env.provider.requestCount(grantType: "refresh_token") == 2)
        #expect(abs(env.session.serverClock.offset + 600) <= 1)
        #expect(env.session.stage == .active)
        #expect(env.store.record.session?.refreshToken != before)
        // From now on, one request per refresh.
        _ = try await env.session.refresh()
        #expect(env.provider.requestCount(grantType: "refresh_token") == 3)
        try await env.finish()
    }

    @Test(
        "without the offset (a bound of zero) the same sign-in fails on the proof's iat",
        arguments: [Duration.seconds(600), .seconds(-600)])
    func withoutTheOffsetItFails(providerAhead: Duration) async throws {
        let env = try Self.environment(providerAhead: providerAhead, bound: .zero)
        env.presenter.enqueue(.approve(subject: "alice"))
        do {
            _ = try await env.session.signIn()
            Issue.record("a sign-in with proofs ten minutes off succeeded")
        } catch {
            guard case .provider(let answer) = error.kind else {
                Issue.record("not the provider's answer: \(error)")
                return
            }
            #expect(answer.oauthError == "invalid_dpop_proof")
        }
        #expect(env.session.serverClock.latestEstimate?.isApplied == false)
        #expect(env.provider.requestCount(grantType: "authorization_code") == 1)
        try await env.finish()
    }

    @Test("an id_token issued ten minutes ahead of the device's clock is judged on the provider's")
    func idTokenTimes() async throws {
        let env = try Self.environment(providerAhead: .seconds(600), dpop: false)
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        #expect(env.session.stage == .active)
        _ = try await env.session.refresh()
        #expect(env.session.stage == .active)
        try await env.finish()

        let refused = try Self.environment(providerAhead: .seconds(600), dpop: false, bound: .zero)
        refused.presenter.enqueue(.approve(subject: "alice"))
        do {
            _ = try await refused.session.signIn()
            Issue.record("an id_token issued ten minutes in the device's future was accepted on the device's clock")
        } catch {
            #expect(error.code == .verificationFailed)
        }
        // The tokens it refused to use are revoked in the background.
        await refused.waitUntil { refused.session.workInFlight.isEmpty }
        try await refused.finish()
    }

    @Test("the provider's answers carry its own time")
    func dateHeader() async throws {
        let env = try Self.environment(providerAhead: .seconds(600), dpop: false)
        let response = try await env.provider.send(
            HTTPRequest(method: "GET", url: env.provider.configuration.issuer.appendingPathComponent(".well-known/jwks.json")))
        let date = try #require(response.header("Date"))
        let expected = Int(env.clock.wallClockNow().timeIntervalSince1970) + 600
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(Int(try #require(formatter.date(from: date)).timeIntervalSince1970) == expected)
    }
}
