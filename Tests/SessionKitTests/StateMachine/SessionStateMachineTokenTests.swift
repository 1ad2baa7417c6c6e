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
            #expect(m.tokenRequested(waiter: 1, at: 3539) == [.resume([1], .tokens(Script.tokens("A")))])
            #expect(m.stage == .active)
        }

        @Test func tokenExactlyAtTheLeadTimeIsDue() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(m.freshTokens(at: 3540) == nil)
            #expect(
                m.tokenRequested(waiter: 1, at: 3540) == [
                    .transition(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                    .refresh(generation: 1, previous: Script.tokens("A")),
                ])
            #expect(m.stage == .refreshing)
        }

        @Test func tokenOneSecondInsideTheLeadTimeIsDue() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(m.freshTokens(at: 3541) == nil)
            #expect(
                m.tokenRequested(waiter: 1, at: 3541) == [
                    .transition(.active, .refreshing, .tokenDue(inSeconds: 59, callers: 1)),
                    .refresh(generation: 1, previous: Script.tokens("A")),
                ])
        }

        @Test func expiredTokenIsDueNow() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(
                m.tokenRequested(waiter: 1, at: 4000) == [
                    .transition(.active, .refreshing, .tokenDue(inSeconds: 0, callers: 1)),
                    .refresh(generation: 1, previous: Script.tokens("A")),
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
                    .transition(.refreshing, .active, .refreshed(callers: 4)),
                    .resume([1, 2, 3, 4], .tokens(Script.tokens("B"))),
                ])
        }

        @Test func aJoinedCallerIsCancelledAlone() {
            var m = Script.makeRefreshing(waiters: [1])
            let joined = [m.joinRefresh(waiter: 2), m.joinRefresh(waiter: 3)]
            #expect(joined == [true, true])
            #expect(m.cancel(waiter: 2) == [.resume([2], .failed(.cancelled))])
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
                    .transition(.active, .refreshing, .refreshRequested),
                    .refresh(generation: 1, previous: Script.tokens("A")),
                ])
            #expect(m.stage == .refreshing)
        }

        // MARK: - Coalescing

        @Test func concurrentCallersShareOneRefresh() {
            var m = Script.makeActive(expiresIn: 30)
            #expect(
                m.tokenRequested(waiter: 1) == [
                    .transition(.active, .refreshing, .tokenDue(inSeconds: 30, callers: 1)),
                    .refresh(generation: 1, previous: Script.tokens("A", expiresIn: 30)),
                ])
            #expect(m.tokenRequested(waiter: 2) == [])
            #expect(m.tokenRequested(waiter: 3) == [])
            #expect(m.refreshRequested(waiter: 4) == [])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    .transition(.refreshing, .active, .refreshed(callers: 4)),
                    .resume([1, 2, 3, 4], .tokens(Script.tokens("B"))),
                ])
            #expect(m.activeTokens == Script.tokens("B"))
        }

        @Test func thousandCallersMakeOneRefreshAndAreResumedInArrivalOrder() {
            var m = Script.makeActive(expiresIn: 30)
            var lines: [Script.Machine.Action] = []
            for waiter in 101...1100 {
                lines += m.tokenRequested(waiter: waiter)
            }
            #expect(
                lines.filter { if case .refresh = $0 { true } else { false } } == [
                    .refresh(generation: 1, previous: Script.tokens("A", expiresIn: 30))
                ])
            #expect(m.waiting == Array(101...1100))
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    .transition(.refreshing, .active, .refreshed(callers: 1000)),
                    .resume(Array(101...1100), .tokens(Script.tokens("B"))),
                ])
        }

        @Test func cancellingOneWaiterRemovesOnlyThatWaiter() {
            var m = Script.makeRefreshing(waiters: [1, 2, 3])
            #expect(m.cancel(waiter: 2) == [.resume([2], .failed(.cancelled))])
            #expect(m.stage == .refreshing)
            #expect(m.waiting == [1, 3])
            // A second cancellation of the same caller, or of one never waiting, is a no-op.
            #expect(m.cancel(waiter: 2) == [])
            #expect(m.cancel(waiter: 7) == [])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    .transition(.refreshing, .active, .refreshed(callers: 2)),
                    .resume([1, 3], .tokens(Script.tokens("B"))),
                ])
        }

        @Test func cancellingEveryWaiterKeepsTheRefreshGoing() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(m.cancel(waiter: 1) == [.resume([1], .failed(.cancelled))])
            #expect(m.stage == .refreshing)
            // The refresh may carry a rotated refresh token, so its result is still adopted.
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    .transition(.refreshing, .active, .refreshed(callers: 0)),
                    .resume([], .tokens(Script.tokens("B"))),
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
                    .transition(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: 2, because: .provider(.answered(503)))),
                    .startTimer(2, after: .seconds(2)),
                ])
            #expect(m.retryAttempt == 2)
            #expect(m.tokenRequested(waiter: 3, at: 31) == [])
            #expect(m.timerFired(1) == [])
            #expect(m.timerFired(2) == [.refresh(generation: 1, attempt: 2, previous: Script.tokens("A", expiresIn: 30))])
            #expect(m.timerFired(2) == [])
            #expect(
                m.refreshFailed(.transient(Self.timedOut, retryIn: .milliseconds(4500)), at: 31) == [
                    .transition(
                        .refreshing, .refreshing, .retrying(attempt: 2, afterSeconds: 4.5, because: .provider(.transport(.timedOut)))),
                    .startTimer(3, after: .milliseconds(4500)),
                ])
            #expect(m.timerFired(2) == [])
            #expect(m.timerFired(3) == [.refresh(generation: 1, attempt: 3, previous: Script.tokens("A", expiresIn: 30))])
            #expect(
                m.refreshSucceeded(Script.tokens("B")) == [
                    .transition(.refreshing, .active, .refreshed(callers: 3)),
                    .resume([1, 2, 3], .tokens(Script.tokens("B"))),
                ])
            #expect(m.timerFired(3) == [])
            #expect(m.stage == .active)
        }

        @Test func refreshGivingUpKeepsTheTokensAndIsNotSticky() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.transient(.provider(.transport(.connectionFailed("offline"))), retryIn: nil), at: 31) == [
                    .transition(.refreshing, .active, .refreshFailedTransiently(.provider(.transport(.connectionFailed("offline"))))),
                    .resume([1, 2], .failed(.provider(.transport(.connectionFailed("offline"))))),
                ])
            #expect(m.stage == .active)
            #expect(m.activeTokens == Script.tokens("A", expiresIn: 30))
            #expect(m.generation == 1)
            // The next caller starts a new refresh.
            #expect(
                m.tokenRequested(waiter: 3) == [
                    .transition(.active, .refreshing, .tokenDue(inSeconds: 30, callers: 1)),
                    .refresh(generation: 1, previous: Script.tokens("A", expiresIn: 30)),
                ])
            #expect(m.retryAttempt == 1)
        }

        // MARK: - The lead time is a preference, not a cliff

        @Test func insideTheLeadTimeAFailureThatMayPassHandsOutTheCurrentToken() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(2)), at: 5) == [
                    .transition(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: 2, because: .provider(.answered(503)))),
                    .startTimer(2, after: .seconds(2)),
                    .resume([1, 2], .tokens(Script.tokens("A", expiresIn: 30))),
                ])
            #expect(m.waiting == [])
            // While backing off, the current token is handed out until it really expires …
            #expect(m.freshTokens(at: 29) == Script.tokens("A", expiresIn: 30))
            #expect(m.freshTokens(at: 30) == nil)
            #expect(m.tokenRequested(waiter: 3, at: 10) == [.resume([3], .tokens(Script.tokens("A", expiresIn: 30)))])
            let joined = m.joinRefresh(waiter: 4, at: 10)
            #expect(joined == false)
            // … and only past it do callers wait for the next attempt: one attempt per backoff step.
            #expect(m.tokenRequested(waiter: 5, at: 30) == [])
            #expect(m.waiting == [5])
            #expect(m.timerFired(2) == [.refresh(generation: 1, attempt: 2, previous: Script.tokens("A", expiresIn: 30))])
        }

        @Test func aGivenUpRefreshHandsOutTheCurrentTokenWhileItIsValid() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: nil), at: 5) == [
                    .transition(.refreshing, .active, .refreshFailedTransiently(.provider(.answered(503)))),
                    .resume([1], .tokens(Script.tokens("A", expiresIn: 30))),
                ])
        }

        @Test func refreshRejectedSignsOut() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.refreshFailed(.permanent(.refreshTokenRejected)) == [
                    .transition(.refreshing, .signedOut, .refreshRejected(nil)),
                    .resume([1, 2], .failed(.refreshTokenRejected)),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
            #expect(m.tokenRequested(waiter: 3) == [.resume([3], .failed(.notSignedIn))])
        }

        @Test func rejectedRefreshedIDTokenSignsOut() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshFailed(.permanent(.verificationFailed(.subjectMismatch))) == [
                    .transition(.refreshing, .signedOut, .verificationFailed(.subjectMismatch)),
                    .resume([1], .failed(.verificationFailed(.subjectMismatch))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func storeFailureDuringRefreshSignsOut() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshFailed(.permanent(.storage(.noSpace))) == [
                    .transition(.refreshing, .signedOut, .storageFailed(.noSpace)),
                    .resume([1], .failed(.storage(.noSpace))),
                ])
        }

        @Test func refreshGivingUpAfterARetryKeepsTheTokens() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(2)), at: 31)
            _ = m.timerFired(2)
            #expect(
                m.refreshFailed(.transient(Self.unavailable, retryIn: nil), at: 31) == [
                    .transition(.refreshing, .active, .refreshFailedTransiently(.provider(.answered(503)))),
                    .resume([1], .failed(Self.unavailable)),
                ])
        }

        @Test func refreshWithANewEffectiveSubjectTellsTheApp() {
            var m = Script.makeRefreshing(waiters: [1])
            #expect(
                m.refreshSucceeded(Script.tokens("C", subject: "bob")) == [
                    .emit(.subjectChanged(from: "alice", to: "bob", absorbed: [])),
                    .transition(.refreshing, .active, .refreshed(callers: 1)),
                    .resume([1], .tokens(Script.tokens("C", subject: "bob"))),
                ])
        }

        // MARK: - Late results

        @Test func lateRefreshAfterSignOutIsDiscarded() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.signOut(waiter: 2)
            #expect(m.generation == 2)
            #expect(m.refreshSucceeded(Script.tokens("B"), generation: 1) == [.discardLateTokens(Script.tokens("B"))])
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
            #expect(m.refreshSucceeded(Script.tokens("B"), generation: 1) == [.discardLateTokens(Script.tokens("B"))])
            #expect(m.activeTokens == Script.tokens("D"))
        }

        @Test func secondResultOfTheSameRefreshIsDiscarded() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.refreshSucceeded(Script.tokens("B"))
            #expect(m.refreshSucceeded(Script.tokens("C")) == [.discardLateTokens(Script.tokens("C"))])
            #expect(m.activeTokens == Script.tokens("B"))
        }
    }
}
