import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `refresh()` means "a token newer than the one I hold": never the old one, joined with a
/// refresh in flight, or why not. `validAccessToken()` keeps "current or fresh".
@Suite("Session forced refresh")
struct SessionForcedRefreshTests {
    typealias Step = SimulatedSessionEnvironment.Step

    @Test("refresh() returns a newer token than the one held, long before it is due")
    func refreshReturnsANewerToken() async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(600))
        let held = try await h.session.validAccessToken()
        let newer = try await h.session.refresh()
        #expect(newer.secret != held.secret)
        #expect(newer.expiresAt > held.expiresAt)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test(
        "a failure that may pass throws once the policy gives up; the held token is never handed back",
        arguments: [SimulatedProviderFault.connectionFailure, .serverError(status: 503)])
    func transientFailureThrows(fault: SimulatedProviderFault) async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(600))
        let held = try await h.session.validAccessToken()
        h.provider.script(fault, on: .token, times: 3)
        let session = h.session
        let forced = Task { await SessionCallResult { () async throws(SessionError) in try await session.refresh() } }
        await h.advanceToNextSleeper()
        await h.advanceToNextSleeper()
        let error = try #require(await forced.value.error, "refresh() must not succeed with the held token")
        #expect(error.isTransient)
        #expect(h.session.stage == .active)
        // validAccessToken() still means "current or fresh": the held token, still valid.
        #expect(try await h.session.validAccessToken() == held)
    }

    @Test("during a backoff the current token goes to validAccessToken() callers, refresh() waits for the retry")
    func backoffSplitsTheCallers() async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        // Due, not expired: inside the lead time.
        h.clock.advance(by: .seconds(3550))
        let held = try await h.session.validAccessToken()
        #expect(held.secret == h.store.record.session?.accessToken)
        h.provider.script(.serverError(status: 503), on: .token)
        let session = h.session
        let forced = Task { await SessionCallResult { () async throws(SessionError) in try await session.refresh() } }
        await h.clock.waitForSleepers(count: 1)
        #expect(h.session.stage == .refreshing)
        // A "current or fresh" caller is handed the still-valid token during the backoff …
        #expect(try await h.session.validAccessToken() == held)
        // … the refresh() caller is not: it is still waiting.
        #expect(h.session.waitingCallerCount == 1)
        h.clock.advanceToNextDeadline()
        let newer = try #require(await forced.value.value)
        #expect(newer.secret != held.secret)
    }

    @Test("refresh() joins a refresh in flight instead of starting another")
    func refreshJoinsTheRefreshInFlight() async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3600))
        h.provider.script(.slow(.seconds(1)), on: .token)
        let session = h.session
        let due = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.clock.waitForSleepers(count: 1)
        let forced = Task { await SessionCallResult { () async throws(SessionError) in try await session.refresh() } }
        await h.waitForWaitingCallers(2)
        h.clock.advanceToNextDeadline()
        let token = try #require(await due.value.value)
        #expect(await forced.value.value == token)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test("a refresh answered without an id_token says the identity was kept, not verified")
    func refreshWithoutAnIDTokenSaysIdentityKept() async throws {
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(issuesIDTokenOnRefresh: false))
        await h.startRecording()
        _ = try await h.signIn()
        _ = try await h.session.refresh()
        #expect(h.steps.last == .move(.refreshing, .active, .refreshedIdentityKept(callers: 1)))
        #expect(TransitionReason.refreshedIdentityKept(callers: 1).description.contains("identity kept"))
        #expect(!TransitionReason.refreshedIdentityKept(callers: 1).description.contains("verified"))
    }
}
