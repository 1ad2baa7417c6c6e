import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Sign-out and account-deletion scripts: server first, retries on timers, refusals, late answers.
    @Suite struct SessionStateMachineEndingTests {
        typealias Script = MachineScript

        // MARK: - Sign-out

        @Test func signOutFromActiveRevokesFirst() {
            var m = Script.makeActive()
            #expect(
                m.signOut(waiter: 1) == [
                    .transition(.active, .revoking, .signOutRequested),
                    .revoke(generation: 2, attempt: 1),
                ])
            // No token is handed out until the provider answered.
            #expect(m.freshTokens() == nil)
            #expect(m.tokenRequested(waiter: 2) == [.resume([2], .failed(.signOutInProgress))])
            #expect(m.signOut(waiter: 3) == [])
            #expect(
                m.serverConfirmed() == [
                    .transition(.revoking, .signedOut, .revocationConfirmed),
                    .resume([1, 3], .done),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 3)
        }

        @Test func signOutFromRefreshingFailsTheRefreshWaiters() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.signOut(waiter: 3) == [
                    .cancelRefresh,
                    .resume([1, 2], .failed(.signOutInProgress)),
                    .transition(.refreshing, .revoking, .signOutRequested),
                    .revoke(generation: 2, attempt: 1),
                ])
            #expect(m.stage == .revoking)
            #expect(m.refreshSucceeded(Script.tokens("B"), generation: 1) == [.discardLateTokens(Script.tokens("B"))])
            #expect(m.stage == .revoking)
        }

        @Test func signOutDuringARefreshRetryCancelsItsTimer() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.refreshFailed(.transient(.provider(.transport(.timedOut)), retryIn: .seconds(2)), at: 31)
            #expect(
                m.signOut(waiter: 2) == [
                    .cancelRefresh,
                    .resume([1], .failed(.signOutInProgress)),
                    .cancelTimer(2),
                    .transition(.refreshing, .revoking, .signOutRequested),
                    .revoke(generation: 2, attempt: 1),
                ])
            #expect(m.timerFired(2) == [])
            #expect(m.stage == .revoking)
        }

        @Test func signOutFromHandoffCancelsTheSignIn() {
            var m = Script.makeHandoff()
            #expect(
                m.signOut(waiter: 1) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .handoffCancelled),
                    .resume([90], .failed(.cancelled)),
                    .resume([1], .done),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.callback() == [.emit(.callbackRefused(.noHandoffWaiting))])
            #expect(!m.lastCallbackConsumed)
        }

        @Test func signOutFromVerifyingAbandonsTheExchange() {
            var m = Script.makeVerifying()
            #expect(
                m.signOut(waiter: 1) == [
                    .transition(.verifying, .signedOut, .handoffCancelled),
                    .resume([90], .failed(.cancelled)),
                    .resume([1], .done),
                ])
            #expect(m.generation == 2)
            #expect(m.exchangeSucceeded(Script.tokens("A"), generation: 1) == [.discardLateTokens(Script.tokens("A"))])
        }

        @Test func signOutWhenSignedOutIsAlreadyDone() {
            var m = Script.makeSignedOut()
            #expect(m.signOut(waiter: 1) == [.resume([1], .done)])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 0)
        }

        @Test func revocationRetriesOnTimersAndIgnoresStaleOnes() {
            var m = Script.makeRevoking()
            #expect(
                m.serverFailed(.transient(.answered(503), retryIn: .seconds(1))) == [
                    .transition(.revoking, .revoking, .retrying(attempt: 1, afterSeconds: 1, because: .provider(.answered(503)))),
                    .startTimer(2, after: .seconds(1)),
                ])
            #expect(m.timerFired(1) == [])
            #expect(m.timerFired(2) == [.revoke(generation: 2, attempt: 2)])
            #expect(m.timerFired(2) == [])
            #expect(m.serverFailed(.transient(.transport(.timedOut), retryIn: .seconds(3)), generation: 1) == [])
            #expect(
                m.serverFailed(.transient(.transport(.timedOut), retryIn: .seconds(3))) == [
                    .transition(.revoking, .revoking, .retrying(attempt: 2, afterSeconds: 3, because: .provider(.transport(.timedOut)))),
                    .startTimer(3, after: .seconds(3)),
                ])
            #expect(m.timerFired(3) == [.revoke(generation: 2, attempt: 3)])
            #expect(m.serverConfirmed().first == .transition(.revoking, .signedOut, .revocationConfirmed))
        }

        @Test func providerWithoutRevocationSignsOutLocally() {
            var m = Script.makeRevoking()
            #expect(
                m.serverFailed(.cannotTell(.revocation)) == [
                    .transition(.revoking, .signedOut, .signedOutLocallyOnly(.unsupported(.revocation))),
                    .resume([91], .done),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func refusedRevocationStillSignsOutLocally() {
            var m = Script.makeRevoking()
            #expect(
                m.serverFailed(.refused(status: 400)) == [
                    .transition(.revoking, .signedOut, .signedOutLocallyOnly(.provider(.answered(400)))),
                    .resume([91], .done),
                ])
        }

        @Test func aLockedStoreWhileRevokingKeepsTheSessionAndSaysTryAgain() {
            var m = Script.makeRevoking()
            #expect(
                m.serverFailed(.storage(.locked("device locked"))) == [
                    .transition(.revoking, .active, .storageFailed(.locked("device locked"))),
                    .resume([91], .failed(.storage(.locked("device locked")))),
                ])
            #expect(m.activeTokens == Script.tokens("A"))
            #expect(SessionError.storage(.locked("device locked")).category == .transient)
        }

        @Test func anyOtherStoreFailureWhileRevokingEndsTheSessionInMemory() {
            var m = Script.makeRevoking()
            let generation = m.generation
            #expect(
                m.serverFailed(.storage(.ioFailure("disk"))) == [
                    .transition(.revoking, .signedOut, .storageFailed(.ioFailure("disk"))),
                    .resume([91], .failed(.storage(.ioFailure("disk")))),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == generation + 1)
        }

        @Test func aSignOutThatCannotBeJournaledGoesOnAndSaysSo() {
            var m = Script.makeRevoking()
            #expect(m.serverNotJournaled(.noSpace) == [.transition(.revoking, .revoking, .notJournaled(.noSpace))])
            #expect(m.stage == .revoking)
            #expect(m.serverNotJournaled(.noSpace, generation: m.generation + 1) == [])
            #expect(m.serverConfirmed().last == .resume([91], .done))
            #expect(m.stage == .signedOut)
        }

        @Test func everyStageTheMachineLeavesRevokingForIsDeclared() {
            var m = Script.makeRevoking()
            _ = m.serverFailed(.storage(.ioFailure("disk")))
            let declared = SessionInput.allCases.flatMap { event -> [SessionStage] in
                guard case .moves(let targets) = SessionTransitionTable.outcome(of: event, in: .revoking) else { return [] }
                return targets
            }
            #expect(declared.contains(m.stage))
        }

        // MARK: - Account deletion

        @Test func deleteAccountDisconnectsFirstThenTellsTheApp() {
            var m = Script.makeActive()
            #expect(
                m.deleteAccount(waiter: 1) == [
                    .transition(.active, .disconnecting, .accountDeletionRequested),
                    .disconnect(generation: 2, attempt: 1),
                ])
            #expect(m.freshTokens() == nil)
            #expect(m.tokenRequested(waiter: 2) == [.resume([2], .failed(.accountDeletionInProgress))])
            #expect(m.signOut(waiter: 3) == [.resume([3], .failed(.accountDeletionInProgress))])
            #expect(m.deleteAccount(waiter: 4) == [])
            #expect(
                m.serverConfirmed(subject: "alice") == [
                    .transition(.disconnecting, .signedOut, .accountDeleted),
                    .emit(.deleteUserData(subject: "alice")),
                    .resume([1, 4], .done),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 3)
        }

        @Test func deletionConfirmedWithoutASubjectUsesTheSessionsSubject() {
            var m = Script.makeDisconnecting()
            #expect(
                m.serverConfirmed(subject: nil) == [
                    .transition(.disconnecting, .signedOut, .accountDeleted),
                    .emit(.deleteUserData(subject: "alice")),
                    .resume([92], .done),
                ])
        }

        @Test func deleteAccountFromRefreshingFailsTheRefreshWaiters() {
            var m = Script.makeRefreshing(waiters: [1, 2])
            #expect(
                m.deleteAccount(waiter: 3) == [
                    .cancelRefresh,
                    .resume([1, 2], .failed(.accountDeletionInProgress)),
                    .transition(.refreshing, .disconnecting, .accountDeletionRequested),
                    .disconnect(generation: 2, attempt: 1),
                ])
            #expect(m.refreshSucceeded(Script.tokens("B"), generation: 1) == [.discardLateTokens(Script.tokens("B"))])
            #expect(m.stage == .disconnecting)
        }

        @Test(arguments: [401, 403])
        func refusedDeletionKeepsTheCredentials(status: Int) {
            var m = Script.makeDisconnecting()
            #expect(
                m.serverFailed(.refused(status: status)) == [
                    .transition(.disconnecting, .active, .accountDeletionRefused(status: status)),
                    .resume([92], .failed(.accountDeletionRefused(status: status))),
                ])
            #expect(m.stage == .active)
            #expect(m.activeTokens == Script.tokens("A"))
            #expect(m.generation == 2)
            #expect(m.tokenRequested(waiter: 1) == [.resume([1], .tokens(Script.tokens("A")))])
        }

        @Test func refusedDeletionAfterARefreshKeepsTheLastVerifiedTokens() {
            var m = Script.makeRefreshing(waiters: [1])
            _ = m.deleteAccount(waiter: 2)
            #expect(
                m.serverFailed(.refused(status: 403)).first
                    == .transition(.disconnecting, .active, .accountDeletionRefused(status: 403)))
            #expect(m.activeTokens == Script.tokens("A", expiresIn: 30))
        }

        @Test func deletionRetriesOnTimersAndIgnoresStaleOnes() {
            var m = Script.makeDisconnecting()
            #expect(
                m.serverFailed(.transient(.transport(.timedOut), retryIn: .seconds(1))) == [
                    .transition(
                        .disconnecting, .disconnecting, .retrying(attempt: 1, afterSeconds: 1, because: .provider(.transport(.timedOut)))),
                    .startTimer(2, after: .seconds(1)),
                ])
            #expect(m.retryAttempt == 2)
            #expect(m.timerFired(1) == [])
            #expect(m.timerFired(2) == [.disconnect(generation: 2, attempt: 2)])
            #expect(m.timerFired(2) == [])
            #expect(
                m.serverFailed(.transient(.answered(429), retryIn: .seconds(2))) == [
                    .transition(.disconnecting, .disconnecting, .retrying(attempt: 2, afterSeconds: 2, because: .provider(.answered(429)))),
                    .startTimer(3, after: .seconds(2)),
                ])
            #expect(m.timerFired(2) == [])
            #expect(m.timerFired(3) == [.disconnect(generation: 2, attempt: 3)])
            // An answer from before the deletion (generation 1) is not this operation's answer.
            #expect(m.serverConfirmed(subject: "alice", generation: 1) == [])
            #expect(m.serverFailed(.refused(status: 403), generation: 1) == [])
            #expect(m.stage == .disconnecting)
            #expect(m.serverConfirmed(subject: "alice").contains(.emit(.deleteUserData(subject: "alice"))))
            #expect(m.timerFired(3) == [])
        }

        @Test func deletionWithoutDisconnectSupportKeepsTheSession() {
            var m = Script.makeDisconnecting()
            let lines = m.serverFailed(.cannotTell(.accountDeletion))
            #expect(lines.last == .resume([92], .failed(.unsupported(.accountDeletion))))
            #expect(m.stage == .active)
            #expect(m.activeTokens == Script.tokens("A"))
            #expect(lines.first == .transition(.disconnecting, .active, .accountDeletionUnavailable(.accountDeletion)))
        }

        @Test func aLockedStoreWhileDisconnectingKeepsTheSession() {
            var m = Script.makeDisconnecting()
            #expect(
                m.serverFailed(.storage(.locked("device locked"))) == [
                    .transition(.disconnecting, .active, .storageFailed(.locked("device locked"))),
                    .resume([92], .failed(.storage(.locked("device locked")))),
                ])
            #expect(m.stage == .active)
        }

        @Test func anyOtherStoreFailureWhileDisconnectingEndsTheSessionInMemory() {
            var m = Script.makeDisconnecting()
            #expect(
                m.serverFailed(.storage(.permissionDenied("read-only"))) == [
                    .transition(.disconnecting, .signedOut, .storageFailed(.permissionDenied("read-only"))),
                    .resume([92], .failed(.storage(.permissionDenied("read-only")))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func aDeletionThatCannotBeJournaledGoesOnAndSaysSo() {
            var m = Script.makeDisconnecting()
            #expect(m.serverNotJournaled(.noSpace) == [.transition(.disconnecting, .disconnecting, .notJournaled(.noSpace))])
            #expect(m.stage == .disconnecting)
        }
    }
}
