import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Cold-launch scripts: each restore plan, and what a restored session does next.
    @Suite struct SessionStateMachineRestoreTests {
        typealias Script = MachineScript

        @Test func nothingStoredStaysSignedOut() {
            var m = Script.makeSignedOut()
            #expect(
                m.restore(.nothing, waiter: 1) == [
                    .transition(.signedOut, .signedOut, .nothingStored),
                    .resume([1], .restored(.signedOut)),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 0)
        }

        @Test func aStoredSessionWhoseTokenIsNotDueIsSignedInWithoutTheNetwork() {
            var m = Script.makeSignedOut()
            #expect(
                m.restore(.session(Script.tokens("S", expiresIn: 3000)), waiter: 1) == [
                    .transition(.signedOut, .active, .restored(subject: "alice")),
                    .resume([1], .restored(.active)),
                ])
            #expect(m.stage == .active)
            #expect(m.freshTokens() == Script.tokens("S", expiresIn: 3000))
        }

        @Test func aStoredSessionWhoseTokenIsDueIsSignedInAndRefreshedInTheBackground() {
            var m = Script.makeSignedOut()
            #expect(
                m.restore(.session(Script.tokens("S", expiresIn: 30)), waiter: 1) == [
                    .transition(.signedOut, .refreshing, .restoredDue(subject: "alice", inSeconds: 30)),
                    .resume([1], .restored(.refreshing)),
                    .refresh(generation: 1, previous: Script.tokens("S", expiresIn: 30)),
                ])
            // A caller during the first attempt waits for it.
            #expect(m.tokenRequested(waiter: 2) == [])
            #expect(
                m.refreshSucceeded(Script.tokens("A")) == [
                    .transition(.refreshing, .active, .refreshed(callers: 1)),
                    .resume([2], .tokens(Script.tokens("A"))),
                ])
        }

        @Test func offlineAtLaunchTheSessionStaysSignedInWithItsTokens() {
            var m = Script.makeSignedOut()
            _ = m.restore(.session(Script.tokens("S", expiresIn: 30)), waiter: 1)
            _ = m.tokenRequested(waiter: 2)
            let offline = SessionError.provider(.transport(.connectionFailed("offline")))
            // Still valid for 30 s: the caller gets it, and the refresh backs off.
            #expect(
                m.refreshFailed(.transient(offline, retryIn: .seconds(1))) == [
                    .transition(
                        .refreshing, .refreshing,
                        .retrying(attempt: 1, afterSeconds: 1, because: .provider(.transport(.connectionFailed("offline"))))),
                    .startTimer(1, after: .seconds(1)),
                    .resume([2], .tokens(Script.tokens("S", expiresIn: 30))),
                ])
            #expect(m.freshTokens(at: 29) == Script.tokens("S", expiresIn: 30))
            #expect(m.tokenRequested(waiter: 3, at: 10) == [.resume([3], .tokens(Script.tokens("S", expiresIn: 30)))])
            // Past its expiry, callers wait for the next attempt; when the policy gives up they get
            // the transient error and the session stays signed in.
            #expect(m.tokenRequested(waiter: 4, at: 31) == [])
            #expect(m.timerFired(1) == [.refresh(generation: 1, attempt: 2, previous: Script.tokens("S", expiresIn: 30))])
            #expect(
                m.refreshFailed(.transient(offline, retryIn: nil), at: 31) == [
                    .transition(.refreshing, .active, .refreshFailedTransiently(.provider(.transport(.connectionFailed("offline"))))),
                    .resume([4], .failed(offline)),
                ])
            #expect(m.stage == .active)
        }

        @Test func aForeignStoredSessionIsNotRestored() {
            var m = Script.makeSignedOut()
            #expect(
                m.restore(.foreignSession(.client), waiter: 1) == [
                    .transition(.signedOut, .signedOut, .storedSessionNotRestored(.client)),
                    .resume([1], .failed(.storedSessionForeign(.client))),
                ])
            #expect(m.generation == 0)
        }

        @Test func aStoredSessionWhoseDPoPKeyIsLostIsNotRestored() {
            var m = Script.makeSignedOut()
            let loss = DPoPKeyLoss(reason: .missing, subject: "S")
            #expect(
                m.restore(.dpopKeyUnavailable(loss), waiter: 1) == [
                    .transition(.signedOut, .signedOut, .dpopKeyUnavailable(loss)),
                    .resume([1], .failed(.dpopKeyUnavailable(loss))),
                ])
            #expect(m.generation == 0)
            #expect(m.stage == .signedOut)
        }

        @Test func anIncompleteStoredSessionIsRefreshedAndVerifiedBeforeUse() {
            var m = Script.makeSignedOut()
            // The launch does not wait for the refresh: restore() is answered at once.
            #expect(
                m.restore(.incompleteSession, waiter: 1) == [
                    .transition(.signedOut, .refreshing, .restoring),
                    .resume([1], .restored(.refreshing)),
                    .refresh(generation: 1, previous: nil),
                ])
            #expect(m.freshTokens() == nil)
            #expect(m.tokenRequested(waiter: 2) == [])
            #expect(
                m.refreshSucceeded(Script.tokens("A")) == [
                    .transition(.refreshing, .active, .verified(subject: "alice")),
                    .resume([2], .tokens(Script.tokens("A"))),
                ])
            #expect(m.stage == .active)
        }

        @Test func restoreRetriesKeepRestoring() {
            var m = Script.makeRestoring()
            #expect(
                m.refreshFailed(.transient(.provider(.transport(.timedOut)), retryIn: .seconds(2))) == [
                    .transition(
                        .refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: 2, because: .provider(.transport(.timedOut)))),
                    .startTimer(1, after: .seconds(2)),
                ])
            #expect(m.timerFired(1) == [.refresh(generation: 1, attempt: 2, previous: nil)])
        }

        @Test func restoreThatCannotReachTheProviderEndsSignedOut() {
            var m = Script.makeRestoring()
            #expect(
                m.refreshFailed(.transient(.provider(.transport(.timedOut)), retryIn: nil)) == [
                    .transition(.refreshing, .signedOut, .refreshFailedTransiently(.provider(.transport(.timedOut)))),
                    .resume([], .failed(.provider(.transport(.timedOut)))),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
        }

        @Test func restoreWithARejectedRefreshTokenEndsSignedOut() {
            var m = Script.makeRestoring()
            #expect(
                m.refreshFailed(.rejected(answer: .answered(400, "invalid_grant"))) == [
                    .transition(.refreshing, .signedOut, .refreshRejected(.answered(400, "invalid_grant"))),
                    .resume([], .failed(.refreshTokenRejected)),
                ])
        }

        @Test func pendingSignOutIsResumed() {
            var m = Script.makeSignedOut()
            #expect(
                m.restore(.pending(.signOut), waiter: 1) == [
                    .transition(.signedOut, .revoking, .resumingPendingOperation),
                    .resume([1], .restored(.revoking)),
                    .revoke(generation: 1, attempt: 1),
                ])
            #expect(m.tokenRequested(waiter: 2) == [.resume([2], .failed(.signOutInProgress))])
            #expect(
                m.serverConfirmed() == [
                    .transition(.revoking, .signedOut, .revocationConfirmed),
                    .resume([], .done),
                ])
        }

        @Test func pendingDeletionIsResumed() {
            var m = Script.makeSignedOut()
            #expect(
                m.restore(.pending(.deleteAccount), waiter: 1) == [
                    .transition(.signedOut, .disconnecting, .resumingPendingOperation),
                    .resume([1], .restored(.disconnecting)),
                    .disconnect(generation: 1, attempt: 1),
                ])
            #expect(
                m.serverConfirmed(subject: "alice") == [
                    .transition(.disconnecting, .signedOut, .accountDeleted),
                    .emit(.deleteUserData(subject: "alice")),
                    .resume([], .done),
                ])
        }

        @Test func pendingDeletionRefusedGoesOnToRestoreTheKeptSession() {
            var m = Script.makeSignedOut()
            _ = m.restore(.pending(.deleteAccount), waiter: 1)
            // No verified tokens in memory after a relaunch: the kept credentials are refreshed and verified.
            #expect(
                m.serverFailed(.refused(status: 403)) == [
                    .transition(.disconnecting, .refreshing, .accountDeletionRefused(status: 403)),
                    .resume([], .failed(.accountDeletionRefused(status: 403))),
                    .refresh(generation: 1, previous: nil),
                ])
            #expect(m.stage == .refreshing)
            #expect(m.refreshSucceeded(Script.tokens("B")).contains(.transition(.refreshing, .active, .verified(subject: "alice"))))
        }

        @Test func pendingSignOutGivesWayToANewSignIn() {
            var m = Script.makeSignedOut()
            _ = m.restore(.pending(.signOut), waiter: 1)
            #expect(
                m.signIn(attempt: 1, waiter: 2) == [
                    .deferRevocation,
                    .resume([], .done),
                    .transition(.revoking, .signedOut, .revocationDeferred),
                    .transition(.signedOut, .handoff, .signInRequested),
                    .present(Script.attempt(1), generation: 2),
                    .startTimer(1, after: .seconds(300)),
                ])
        }

        @Test(arguments: [
            RestorePlan<ScriptTokens>.nothing, .session(Script.tokens("S")), .incompleteSession, .foreignSession(.issuer),
            .dpopKeyUnavailable(DPoPKeyLoss(reason: .thumbprintMismatch)), .pending(.signOut), .pending(.deleteAccount),
        ])
        func restoreWhileRunningRestoresNothing(plan: RestorePlan<ScriptTokens>) {
            var m = Script.makeActive()
            #expect(m.restore(plan, waiter: 1) == [.resume([1], .restored(.active))])
            #expect(m.stage == .active)
            #expect(m.generation == 1)
        }

        @Test func secondRestoreWhileRestoringRestoresNothing() {
            var m = Script.makeRestoring()
            #expect(m.restore(.session(Script.tokens("S")), waiter: 1) == [.resume([1], .restored(.refreshing))])
            #expect(m.waiting == [])
        }
    }
}
