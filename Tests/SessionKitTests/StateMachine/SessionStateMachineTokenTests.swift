import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Token scripts: the fresh/due judgement, coalescing, and every way a refresh ends.
    @Suite struct SessionStateMachineTokenTests {
        typealias Script = MachineScript

        static let unavailable = SessionError.provider(.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: ""))
        static let timedOut = SessionError.provider(.transport(.timedOut))

        // MARK: - Fresh or due (lead time 60 s; tokens A expire at +3600 s)

        @Test func tokenOneSecondBeforeTheLeadTimeIsFresh() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(m.freshTokens(at: 3539) == Script.tokens("A"))
            #expect(m.tokenRequested(waiter: 1, at: 3539) == ["resume([1], tokens(A))"])
            #expect(m.stage == .active)
        }

        @Test func tokenExactlyAtTheLeadTimeIsDue() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(m.freshTokens(at: 3540) == nil)
            #expect(
                m.tokenRequested(waiter: 1, at: 3540) == [
                    "transition(active→refreshing: token due in 60s; 1 caller waiting)",
                    "refresh(gen 1)",
                ])
            #expect(m.stage == .refreshing)
        }

        @Test func tokenOneSecondInsideTheLeadTimeIsDue() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(m.freshTokens(at: 3541) == nil)
            #expect(
                m.tokenRequested(waiter: 1, at: 3541) == [
                    "transition(active→refreshing: token due in 59s; 1 caller waiting)",
                    "refresh(gen 1)",
                ])
        }

        @Test func expiredTokenIsDueNow() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(
                m.tokenRequested(waiter: 1, at: 4000) == [
                    "transition(active→refreshing: token due in 0s; 1 caller waiting)",
                    "refresh(gen 1)",
                ])
        }

        @Test func freshTokensAreNotHandedOutOutsideActive() {
            #expect(Script.makeRefreshing().freshTokens() == nil)
            #expect(Script.makeRevoking().freshTokens() == nil)
            #expect(Script.makeSignedOut().freshTokens() == nil)
        }

        @Test(arguments: SessionStage.allCases)
        func callersMayJoinFromOutsideTheActorOnlyWhileRefreshing(stage: SessionStage) {
            var m = Script.make(stage)
            let handoutJoins = if case .joinRefresh? = m.machine.handout { true } else { false }
            #expect(handoutJoins == (stage == .refreshing))
            let waiting = m.waiting
            let joined = m.joinRefresh(waiter: 7)
            #expect(joined == (stage == .refreshing))
            #expect(m.stage == stage)
            #expect(m.waiting == (joined ? waiting + [7] : waiting))
        }

        @Test func aCallerAskingWhileRefreshingOnlyJoins() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(m.tokenRequested(waiter: 2, at: 4000) == [])
            #expect(m.tokenRequested(waiter: 3, at: 4000) == [])
            #expect(m.waiting == [1, 2, 3])
        }

        @Test func joinedCallersShareTheRefreshInArrivalOrder() {
            var m = Script.makeRefreshing(waiters: [1])
            let second = m.joinRefresh(waiter: 2)
            #expect(m.tokenRequested(waiter: 3, at: 4000) == [])
            let fourth = m.joinRefresh(waiter: 4)
            #expect(second && fourth)
            #expect(m.waiting == [1, 2, 3, 4])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    "transition(refreshing→active: refresh verified; 4 callers served)",
                    "resume([1,2,3,4], tokens(B))",
                ])
        }

        @Test func aJoinedCallerIsCancelledAlone() {
            var m = Script.makeRefreshing(waiters: [1])
            let joined = [m.joinRefresh(waiter: 2), m.joinRefresh(waiter: 3)]
            #expect(joined == [true, true])
            #expect(m.cancel(waiter: 2) == ["resume([2], failed(cancelled))"])
            #expect(m.waiting == [1, 3])
        }

        @Test func aJoinAfterTheRefreshEndedIsRefusedAndKeepsNothing() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.refreshSucceeded(Script.tokens("B"))
            let joined = m.joinRefresh(waiter: 2)
            #expect(joined == false)
            #expect(m.waiting == [])
            #expect(m.stage == .active)
        }

        @Test func explicitRefreshIgnoresExpiry() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(
                m.refreshRequested(waiter: 1) == [
                    "transition(active→refreshing: refresh requested)",
                    "refresh(gen 1)",
                ])
            #expect(m.stage == .refreshing)
        }

        // MARK: - Coalescing

        @Test func concurrentCallersShareOneRefresh() {
            var m = Script.makeActive(expiresIn: 30)
            #expect(
                m.tokenRequested(waiter: 1) == [
                    "transition(active→refreshing: token due in 30s; 1 caller waiting)",
                    "refresh(gen 1)",
                ])
            #expect(m.tokenRequested(waiter: 2) == [])
            #expect(m.tokenRequested(waiter: 3) == [])
            #expect(m.refreshRequested(waiter: 4) == [])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    "transition(refreshing→active: refresh verified; 4 callers served)",
                    "resume([1,2,3,4], tokens(B))",
                ])
            #expect(m.activeTokens == Script.tokens("B"))
        }

        @Test func thousandCallersMakeOneRefreshAndAreResumedInArrivalOrder() {
            var m = Script.makeActive(expiresIn: 30)
            var lines: [String] = []
            for waiter in 101...1100 {
                lines += m.tokenRequested(waiter: waiter)
            }
            #expect(lines.filter { $0.hasPrefix("refresh(") } == ["refresh(gen 1)"])
            #expect(m.waiting == Array(101...1100))
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    "transition(refreshing→active: refresh verified; 1000 callers served)",
                    "resume([\((101...1100).map(String.init).joined(separator: ","))], tokens(B))",
                ])
        }

        @Test func cancellingOneWaiterRemovesOnlyThatWaiter() {
            var m = Script.makeRefreshing(waiters: [1, 2, 3])
            #expect(m.cancel(waiter: 2) == ["resume([2], failed(cancelled))"])
            #expect(m.stage == .refreshing)
            #expect(m.waiting == [1, 3])
            // A second cancellation of the same caller, or of one never waiting, is a no-op.
            #expect(m.cancel(waiter: 2) == [])
            #expect(m.cancel(waiter: 7) == [])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    "transition(refreshing→active: refresh verified; 2 callers served)",
                    "resume([1,3], tokens(B))",
                ])
        }

        @Test func cancellingEveryWaiterKeepsTheRefreshGoing() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(m.cancel(waiter: 1) == ["resume([1], failed(cancelled))"])
            #expect(m.stage == .refreshing)
            // The refresh may carry a rotated refresh token, so its result is still adopted.
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    "transition(refreshing→active: refresh verified; 0 callers served)",
                    "resume([], tokens(B))",
                ])
        }

        @Test func cancellationOfAnAlreadyServedCallerIsANoOp() {
            var m = Script.makeActive()
            #expect(m.cancel(waiter: Script.signInCaller) == [])
            #expect(m.stage == .active)
        }

        // MARK: - Refresh outcomes

        // Tokens A expire at +30 s: at +31 s nothing valid can be handed out, so callers wait.
        @Test func refreshRetriesTransientFailuresOnTimers() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(2)), at: 31) == [
                    "transition(refreshing→refreshing: attempt 1 failed (HTTP 503); retrying in 2s)",
                    "startTimer(2, 2s)",
                ])
            #expect(m.retryAttempt == 2)
            #expect(m.tokenRequested(waiter: 3, at: 31) == [])
            #expect(m.timerFired(1) == [])
            #expect(m.timerFired(2) == ["refresh(gen 1)"])
            #expect(m.timerFired(2) == [])
            #expect(
                m.refreshFailed(.transient(Self.timedOut, retryIn: .milliseconds(4500)), at: 31) == [
                    "transition(refreshing→refreshing: attempt 2 failed (timed out); retrying in 4.5s)",
                    "startTimer(3, 4.5s)",
                ])
            #expect(m.timerFired(2) == [])
            #expect(m.timerFired(3) == ["refresh(gen 1)"])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    "transition(refreshing→active: refresh verified; 3 callers served)",
                    "resume([1,2,3], tokens(B))",
                ])
            #expect(m.timerFired(3) == [])
            #expect(m.stage == .active)
        }

        @Test func refreshGivingUpKeepsTheTokensAndIsNotSticky() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.transient(.provider(.transport(.connectionFailed("offline"))), retryIn: nil), at: 31) == [
                    "transition(refreshing→active: refresh failed, tokens kept: connection failed)",
                    "resume([1,2], failed(provider(connection failed)))",
                ])
            #expect(m.stage == .active)
            #expect(m.activeTokens == Script.tokens("A", expiresIn: 30))
            #expect(m.generation == 1)
            // The next caller starts a new refresh.
            #expect(
                m.tokenRequested(waiter: 3) == [
                    "transition(active→refreshing: token due in 30s; 1 caller waiting)",
                    "refresh(gen 1)",
                ])
            #expect(m.retryAttempt == 1)
        }

        // MARK: - The lead time is a preference, not a cliff

        @Test func insideTheLeadTimeAFailureThatMayPassHandsOutTheCurrentToken() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(2)), at: 5) == [
                    "transition(refreshing→refreshing: attempt 1 failed (HTTP 503); retrying in 2s)",
                    "startTimer(2, 2s)",
                    "resume([1,2], tokens(A))",
                ])
            #expect(m.waiting == [])
            // While backing off, the current token is handed out until it really expires …
            #expect(m.freshTokens(at: 29) == Script.tokens("A", expiresIn: 30))
            #expect(m.freshTokens(at: 30) == nil)
            #expect(m.tokenRequested(waiter: 3, at: 10) == ["resume([3], tokens(A))"])
            let joined = m.joinRefresh(waiter: 4, at: 10)
            #expect(joined == false)
            // … and only past it do callers wait for the next attempt: one attempt per backoff step.
            #expect(m.tokenRequested(waiter: 5, at: 30) == [])
            #expect(m.waiting == [5])
            #expect(m.timerFired(2) == ["refresh(gen 1)"])
        }

        @Test func aGivenUpRefreshHandsOutTheCurrentTokenWhileItIsValid() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: nil), at: 5) == [
                    "transition(refreshing→active: refresh failed, tokens kept: HTTP 503)",
                    "resume([1], tokens(A))",
                ])
        }

        @Test func refreshRejectedSignsOut() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.permanent(.refreshTokenRejected)) == [
                    "transition(refreshing→signedOut: refresh rejected: invalid_grant)",
                    "resume([1,2], failed(refreshTokenRejected))",
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
            #expect(m.tokenRequested(waiter: 3) == ["resume([3], failed(notSignedIn))"])
        }

        @Test func rejectedRefreshedIDTokenSignsOut() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshFailed(.permanent(.verificationFailed(.subjectMismatch))) == [
                    "transition(refreshing→signedOut: id_token rejected: sub_mismatch)",
                    "resume([1], failed(verificationFailed(sub_mismatch)))",
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func storeFailureDuringRefreshSignsOut() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshFailed(.permanent(.storage(.noSpace))) == [
                    "transition(refreshing→signedOut: credential store failed: noSpace)",
                    "resume([1], failed(storage(noSpace)))",
                ])
        }

        @Test func refreshGivingUpAfterARetryKeepsTheTokens() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(2)), at: 31)
            _ = m.timerFired(2)
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: nil), at: 31) == [
                    "transition(refreshing→active: refresh failed, tokens kept: HTTP 503)",
                    "resume([1], failed(provider(HTTP 503)))",
                ])
        }

        @Test func refreshWithANewEffectiveSubjectTellsTheApp() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshSucceeded(Script.tokens("C", subject: "bob")) == [
                    "emit(subjectChanged(alice→bob, absorbed []))",
                    "transition(refreshing→active: refresh verified; 1 caller served)",
                    "resume([1], tokens(C))",
                ])
        }

        // MARK: - Late results

        @Test func lateRefreshAfterSignOutIsDiscarded() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.signOut(waiter: 2)
            #expect(m.generation == 2)
            #expect(m.refreshSucceeded(Script.tokens("B"), generation: 1) == ["discardLateTokens(B)"])
            #expect(m.refreshFailed(.permanent(.refreshTokenRejected), generation: 1) == [])
            #expect(m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(1)), generation: 1) == [])
            #expect(m.stage == .revoking)
        }

        @Test func lateRefreshAfterANewSignInIsDiscarded() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.signOut(waiter: 2)
            _ = m.serverConfirmed()
            _ = m.signIn(attempt: 2, waiter: 3)
            _ = m.callback(state: "state-2")
            _ = m.exchangeSucceeded(Script.tokens("D"))
            #expect(m.generation == 4)
            #expect(m.refreshSucceeded(Script.tokens("B"), generation: 1) == ["discardLateTokens(B)"])
            #expect(m.activeTokens == Script.tokens("D"))
        }

        @Test func secondResultOfTheSameRefreshIsDiscarded() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.refreshSucceeded(Script.tokens("B"))
            #expect(m.refreshSucceeded(Script.tokens("C")) == ["discardLateTokens(C)"])
            #expect(m.activeTokens == Script.tokens("B"))
        }
    }
}
