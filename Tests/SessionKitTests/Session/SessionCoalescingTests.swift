import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// How concurrent callers share one refresh: cancellation, failures, and results that arrive late.
@Suite("Session coalescing")
struct SessionCoalescingTests {
    typealias Step = SimulatedSessionEnvironment.Step

    /// Signs in, lets the token become due, scripts a slow refresh answer, starts `count` callers
    /// and returns once all of them wait on the one refresh in flight.
    private func waitingCallers(
        _ h: SimulatedSessionEnvironment, count: Int, answerAfter delay: Duration = .seconds(1)
    ) async throws -> (StoredSession, [Task<SessionCallResult<AccessToken>, Never>]) {
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.clock.advance(by: .seconds(3540))
        h.provider.script(.slow(delay), on: .token)
        let session = h.session
        var callers: [Task<SessionCallResult<AccessToken>, Never>] = []
        for _ in 0..<count {
            callers.append(Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } })
        }
        await h.clock.waitForSleepers(count: 1)
        await h.waitUntil("\(count) callers wait") { session.waitingCallerCount == count }
        return (signedIn, callers)
    }

    @Test("one caller's cancellation removes only that caller; the others get the one refreshed token")
    func cancellationRemovesOnlyThatCaller() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, callers) = try await waitingCallers(h, count: 3)
        callers[1].cancel()
        // The cancelled caller is resumed at once, while the refresh is still in flight.
        #expect(await callers[1].value.error == .cancelled)
        await h.waitUntil("two callers left") { h.session.waitingCallerCount == 2 }
        #expect(h.clock.sleeperCount == 1)
        #expect(h.session.stage == .refreshing)

        h.clock.advanceToNextDeadline()
        let first = try #require(await callers[0].value.value)
        let third = try #require(await callers[2].value.value)
        #expect(first == third)
        #expect(first.secret == h.store.record.session?.accessToken)
        #expect(first.secret != signedIn.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: 2)),
            ])
    }

    @Test("when every caller gives up, the refresh still completes and its verified result is kept")
    func refreshOutlivesItsCallers() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, callers) = try await waitingCallers(h, count: 2)
        for caller in callers { caller.cancel() }
        for caller in callers { #expect(await caller.value.error == .cancelled) }
        await h.waitUntil("no caller left") { h.session.waitingCallerCount == 0 }

        h.clock.advanceToNextDeadline()
        await h.waitUntil("active again") { h.session.stage == .active }
        let stored = try #require(h.store.record.session)
        #expect(stored.rotation == 1)
        #expect(h.provider.isRefreshTokenActive(stored.refreshToken))
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.steps.last == .move(.refreshing, .active, .refreshed(callers: 0)))
        // The kept result is fresh: handed out without another request.
        #expect(try await h.session.validAccessToken().secret == stored.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test("a caller arriving during the retry backoff joins the same refresh")
    func callerJoinsDuringBackoff() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        try await h.signIn()
        // At its expiry, so neither caller can be handed the current token during the backoff.
        h.clock.advance(by: .seconds(3600))
        h.provider.script(.serverError(status: 503), on: .token)
        let session = h.session
        let early = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.clock.waitForSleepers(count: 1)
        let late = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.waitUntil("both wait") { session.waitingCallerCount == 2 }
        h.clock.advanceToNextDeadline()

        let first = try #require(await early.value.value)
        #expect(await late.value.value == first)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 2)
        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == "503 server_error")
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .refreshing, .tokenDue(inSeconds: 0, callers: 1)),
                .move(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.refreshing, .active, .refreshed(callers: 2)),
            ])
    }

    @Test("a failure is not sticky: every waiting caller gets it, the next call makes a new request")
    func failureIsNotSticky() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        // At its expiry, so the callers cannot be handed the current token meanwhile.
        h.clock.advance(by: .seconds(3600))
        h.provider.script(.connectionFailure, on: .token, times: 3)
        let session = h.session
        let callers = (0..<3).map { _ in
            Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        }
        await h.waitUntil("three callers wait") { session.waitingCallerCount == 3 }
        await h.advanceToNextSleeper()
        await h.advanceToNextSleeper()
        for caller in callers {
            #expect(await caller.value.error == .provider(.transport(.connectionFailed("simulated connection failure"))))
        }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 3)
        #expect(
            h.steps.last
                == .move(
                    .refreshing, .active,
                    .refreshFailedTransiently(.provider(.transport(.connectionFailed("simulated connection failure"))))))
        #expect(h.store.record.session == signedIn)

        let token = try await session.validAccessToken()
        #expect(h.provider.requestCount(grantType: "refresh_token") == 4)
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(session.stage == .active)
    }

    @Test("sign-out during a slow refresh: the request is abandoned, nothing is resurrected, the whole grant is revoked")
    func lateRefreshDroppedAfterSignOut() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, callers) = try await waitingCallers(h, count: 1, answerAfter: .seconds(10))
        let session = h.session
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
        // The waiting caller is told at once; no token is handed out while revoking.
        #expect(await callers[0].value.error == .signOutInProgress)
        // The refresh's request is cancelled rather than awaited, so sign-out needs no time to pass.
        #expect(await signOut.value.error == nil)
        #expect(session.stage == .signedOut)
        #expect(h.clock.sleeperCount == 0)
        // The provider rotated before its slow answer; the rotated token never reached the session,
        // and revoking the stored one ended the whole grant, that token included.
        #expect(h.issued.refreshTokens == [signedIn.refreshToken])
        #expect(h.provider.activeGrantCount == 0)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.store.record.isEmpty)
        #expect(
            h.steps.filter { if case .move = $0 { true } else { false } } == Step.signIn() + [
                .move(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                .move(.refreshing, .revoking, .signOutRequested),
                .move(.revoking, .signedOut, .revocationConfirmed),
            ])
        await #expect(throws: SessionError.notSignedIn) { try await session.validAccessToken() }
        #expect(session.identity == nil)
    }

    @Test("sign-out during a slow refresh journals its intent at once and never stores a late result as current")
    func signOutJournaledDuringSlowRefresh() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, callers) = try await waitingCallers(h, count: 1, answerAfter: .seconds(10))
        let savesBefore = h.journal.savedRecords.count
        let session = h.session
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
        #expect(await callers[0].value.error == .signOutInProgress)
        #expect(await signOut.value.error == nil)
        // The first save after the sign-out began is the journal entry, with the signed-in session intact;
        // no save ever made another refresh token current.
        let saves = h.journal.savedRecords.dropFirst(savesBefore)
        #expect(saves.first?.pendingOperation == .signOut)
        #expect(saves.first?.session?.refreshToken == signedIn.refreshToken)
        #expect(saves.allSatisfy { $0.session == nil || $0.session?.refreshToken == signedIn.refreshToken })
        #expect(h.store.record.isEmpty)
    }

    @Test("sign-out during a slow code exchange: the late tokens are discarded and revoked")
    func lateExchangeDroppedAfterSignOut() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.provider.script(.slow(.seconds(5)), on: .token)
        h.presenter.enqueue(.approve(subject: "alice"))
        let session = h.session
        let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn() } }
        await h.waitUntil("verifying") { session.stage == .verifying }
        try await session.signOut()
        #expect(await signIn.value.error == .cancelled)

        await h.advanceToNextSleeper()
        await h.waitUntil("the late refresh token revoked") { h.deferredRevocations == 1 }
        #expect(
            h.steps == [
                .move(.signedOut, .handoff, .signInRequested),
                .move(.handoff, .verifying, .callbackReceived),
                .move(.verifying, .signedOut, .handoffCancelled),
                .event(.deferredRevocationCompleted),
            ])
        #expect(session.stage == .signedOut)
        let late = try #require(h.issued.refreshTokens.first)
        #expect(!h.provider.isRefreshTokenActive(late))
        await h.waitUntil("revocation queue drained") { h.store.record.isEmpty }
        await #expect(throws: SessionError.notSignedIn) { try await session.validAccessToken() }
    }
}
