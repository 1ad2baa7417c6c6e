import Foundation
import SessionKitTesting
import Testing

@testable import SessionKit

/// Callers that join a refresh in flight reach the machine under its lock, without the actor,
/// and wait there like every other caller: the machine owns them and decides everything about them.
@Suite("Session joining a refresh")
struct SessionJoinTests {
    typealias Step = SimulatedSessionEnvironment.Step
    typealias Caller = Task<SessionCallResult<AccessToken>, Never>

    /// Signs in, lets the token become due, scripts a slow refresh answer and starts one caller,
    /// which starts the refresh through the machine; then starts `count` more callers and returns
    /// once all of them wait in the machine.
    private func joinedCallers(
        _ h: SimulatedSessionEnvironment, count: Int, answer: SimulatedProviderFault = .slow(.seconds(1)), at seconds: Int64 = 3540
    ) async throws -> (first: Caller, joined: [Caller]) {
        await h.startRecording()
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(seconds))
        h.provider.script(answer, on: .token)
        let session = h.session
        let first = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.clock.waitForSleepers(count: 1)
        #expect(session.stage == .refreshing)
        #expect(session.waitingCallerCount == 1)
        var joined: [Caller] = []
        for _ in 0..<count {
            joined.append(Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } })
        }
        await h.waitForWaitingCallers(count + 1)
        return (first, joined)
    }

    @Test("callers joining a refresh count as waiting and get the one refreshed token")
    func joinedCallersShareTheRefresh() async throws {
        let h = try SimulatedSessionEnvironment()
        let (first, joined) = try await joinedCallers(h, count: 20)

        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        for caller in joined { #expect(await caller.value.value == token) }
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.session.waitingCallerCount == 0)
        #expect(
            h.steps.suffix(2) == [
                .move(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: 21)),
            ])
    }

    @Test("a joined caller's cancellation takes only it out of the machine")
    func cancellingAJoinedCaller() async throws {
        let h = try SimulatedSessionEnvironment()
        let (first, joined) = try await joinedCallers(h, count: 3)
        joined[1].cancel()
        #expect(await joined[1].value.error == .cancelled)
        await h.waitForWaitingCallers(3)

        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        #expect(await joined[0].value.value == token)
        #expect(await joined[2].value.value == token)
        #expect(h.steps.last == .move(.refreshing, .active, .refreshed(callers: 3)))
    }

    @Test("joined callers and callers through the actor wait in one place")
    func joinedAndActorCallersTogether() async throws {
        let h = try SimulatedSessionEnvironment()
        let (first, joined) = try await joinedCallers(h, count: 2)
        let session = h.session
        let forced = Task { await SessionCallResult { () async throws(SessionError) in try await session.refresh() } }
        await h.waitForWaitingCallers(4)

        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        for caller in joined { #expect(await caller.value.value == token) }
        #expect(await forced.value.value == token)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.steps.last == .move(.refreshing, .active, .refreshed(callers: 4)))
    }

    @Test("sign-out while callers wait: they are told sign-out is in progress")
    func signOutAnswersJoinedCallers() async throws {
        let h = try SimulatedSessionEnvironment()
        let (first, joined) = try await joinedCallers(h, count: 5)
        try await h.session.signOut()
        #expect(await first.value.error == .signOutInProgress)
        for caller in joined { #expect(await caller.value.error == .signOutInProgress) }
        #expect(h.session.stage == .signedOut)
        // Nobody is handed a token after the session ended.
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
    }

    @Test("inside the lead time, a refresh that fails hands joined callers the still-valid token")
    func failedRefreshInsideTheLeadTimeHandsOutTheCurrentToken() async throws {
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
        let (first, joined) = try await joinedCallers(h, count: 4, answer: .timeout)
        let before = try #require(h.store.record.session?.accessToken)
        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        #expect(token.secret == before)
        for caller in joined { #expect(await caller.value.value == token) }
        #expect(h.session.stage == .active)
        #expect(h.steps.last == .move(.refreshing, .active, .refreshFailedTransiently(.provider(.transport(.timedOut)))))
    }

    @Test("past the token's expiry, a refresh that fails answers joined callers with its error; the next call tries again")
    func failedRefreshAnswersJoinedCallers() async throws {
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
        let (first, joined) = try await joinedCallers(h, count: 4, answer: .timeout, at: 3600)
        h.clock.advanceToNextDeadline()
        let error = try #require(await first.value.error)
        #expect(error == .provider(.transport(.timedOut)))
        for caller in joined { #expect(await caller.value.error == error) }
        #expect(h.session.stage == .active)
        // Not sticky: the next caller starts a new refresh, which succeeds.
        let token = try await h.session.validAccessToken()
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 2)
    }
}
