import Testing

@testable import SessionKit

/// Counterexamples the model checker printed for planted bugs (`Scripts/Mutations`), pasted as
/// they came (one line each, then laid out by `swift format`) and followed by what the real
/// machine must do at that point.
@Suite("State machine: the model checker's counterexamples as regression scripts")
struct ModelCheckCounterexampleTests {
    @Test("a refresh that reports after deletion ended in a restoring refresh is dropped (01: generation check)")
    func lateRefreshAfterDeletion() {
        var m = MachineScript()
        _ = m.restore(.incompleteSession, waiter: 1, at: 0)
        _ = m.deleteAccount(waiter: 2)
        _ = m.serverFailed(.cannotTell(.revocation), generation: 2)
        _ = m.refreshSucceeded(MachineScript.tokens("T1", expiresIn: 3600, subject: "alice"), generation: 1)
        #expect(m.lastActions == [.discardLateTokens(MachineScript.tokens("T1", expiresIn: 3600))])
        #expect(m.stage == .refreshing)
    }

    @Test("callers handed the current token during a backoff are no longer held (04: resumed twice)")
    func backoffHandsOutOnce() {
        var m = MachineScript()
        _ = m.restore(.session(MachineScript.tokens("T1", expiresIn: 30)), waiter: 1, at: 0)
        _ = m.tokenRequested(waiter: 2, at: 0)
        _ = m.refreshFailed(.transient(.provider(.answered(503)), retryIn: .seconds(5)), generation: 1, at: 0)
        #expect(m.lastActions.contains(.resume([2], .tokens(MachineScript.tokens("T1", expiresIn: 30)))))
        #expect(m.waiting.isEmpty)
    }

    @Test("a sign-out during a handoff cancels the handoff's timer (05: timer left running)")
    func signOutCancelsTheHandoffTimer() {
        var m = MachineScript()
        _ = m.signIn(attempt: 1, waiter: 1)
        _ = m.signOut(waiter: 2)
        #expect(m.lastActions.contains(.cancelTimer(1)))
        #expect(m.stage == .signedOut)
    }

    @Test("a poll answer of a device sign-in that ended is dropped, not read by the next one's poll (13: poll generation)")
    func latePollOfAnEndedDeviceSignIn() {
        var m = MachineScript()
        _ = m.deviceSignIn(waiter: 1)
        _ = m.deviceCodeIssued(at: 0, generation: 1)
        _ = m.timerFired(2)
        _ = m.signOut(waiter: 2)
        _ = m.deviceSignIn(waiter: 3)
        _ = m.deviceCodeIssued(at: 0, generation: 3)
        _ = m.timerFired(4)
        _ = m.devicePollAnswered(.authorizationPending, at: 0, generation: 1)
        #expect(m.lastActions.isEmpty)
        #expect(m.stage == .handoff)
        // The second sign-in's own poll is still the one it waits for: its answer starts the next wait.
        _ = m.devicePollAnswered(.authorizationPending, at: 5, generation: 3)
        #expect(m.lastActions.contains { if case .startTimer = $0 { true } else { false } })
    }
}
