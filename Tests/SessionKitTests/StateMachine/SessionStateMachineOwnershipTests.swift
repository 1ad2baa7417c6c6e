import Foundation
import Testing

@testable import SessionKit

/// The machine's revocation queue, its shutdown, and its terminal state after an inconsistency.
/// Actions are compared as values.
@Suite("State machine: revocation queue, shutdown, inconsistency")
struct SessionStateMachineOwnershipTests {
    typealias Script = MachineScript
    typealias Action = Script.Machine.Action

    @Test("queued tokens are revoked one at a time; a backoff runs on the machine's timers")
    func revocationQueue() {
        var script = Script.makeSignedOut()
        _ = script.revocationsQueued()
        #expect(script.lastActions == [Action.revokeQueued(attempt: 1)])
        // More tokens while one is in flight: looked at again when the queue reports empty.
        _ = script.revocationsQueued()
        #expect(script.lastActions == [])
        _ = script.queuedRevocationAnswered(.removed(told: true))
        #expect(script.lastActions == [Action.emit(.deferredRevocationCompleted), .revokeQueued(attempt: 1)])
        _ = script.queuedRevocationAnswered(.transient(retryIn: .seconds(4)))
        #expect(script.lastActions == [Action.startTimer(TimerID(raw: 1), after: .seconds(4))])
        // Queued during the backoff: the timer looks at the queue again, nothing starts now.
        _ = script.revocationsQueued()
        #expect(script.lastActions == [])
        _ = script.timerFired(1)
        #expect(script.lastActions == [Action.revokeQueued(attempt: 2)])
        _ = script.queuedRevocationAnswered(.removed(told: false))
        #expect(script.lastActions == [Action.revokeQueued(attempt: 1)])
        _ = script.queuedRevocationAnswered(.queueEmpty)
        #expect(script.lastActions == [])
        #expect(script.machine.revocationQueue.phase == .idle)
        // The queue works beside any stage.
        #expect(script.stage == .signedOut)
    }

    @Test("a token queued while the last one was in flight is not forgotten")
    func queuedMeanwhile() {
        var script = Script.makeActive()
        _ = script.revocationsQueued()
        _ = script.revocationsQueued()
        _ = script.queuedRevocationAnswered(.queueEmpty)
        #expect(script.lastActions == [Action.revokeQueued(attempt: 1)])
        _ = script.queuedRevocationAnswered(.queueEmpty)
        #expect(script.machine.revocationQueue.phase == .idle)
        #expect(script.stage == .active)
    }

    @Test("shutdown answers every held caller, and every later input is refused with shutDown", arguments: SessionStage.allCases)
    func shutdown(from stage: SessionStage) {
        var script = Script.make(stage)
        let held = script.waiting
        _ = script.shutDown()
        // The stage's own work is ended first (the owner's shutdown ends every child after).
        var expected: [Action] =
            switch stage {
            case .handoff: [.cancelPresenter]
            case .refreshing: [.cancelRefresh]
            case .signedOut, .verifying, .active, .revoking, .disconnecting: []
            }
        expected.append(.transition(from: stage, to: .signedOut, reason: .shutDown))
        if !held.isEmpty { expected.append(.resume(held, .failed(.shutDown))) }
        #expect(script.lastActions == expected)
        #expect(script.stage == .signedOut)
        _ = script.tokenRequested(waiter: 40)
        #expect(script.lastActions == [Action.resume([40], .failed(.shutDown))])
        _ = script.signIn(attempt: 5, waiter: 41)
        #expect(script.lastActions == [Action.resume([41], .failed(.shutDown))])
        _ = script.restore(.nothing, waiter: 42)
        #expect(script.lastActions == [Action.resume([42], .failed(.shutDown))])
        #expect(script.joinRefresh(waiter: 43) == false)
        _ = script.shutDown()
        #expect(script.lastActions == [])
    }

    @Test("an inconsistency stops the machine: callers are answered, the app is told, nothing crashes", arguments: SessionStage.allCases)
    func inconsistency(from stage: SessionStage) {
        var script = Script.make(stage)
        let held = script.waiting
        _ = script.inconsistency()
        var expected: [Action] = [.transition(from: stage, to: .signedOut, reason: .internalFailure), .emit(.sessionFailed)]
        if !held.isEmpty { expected.append(.resume(held, .failed(.sessionFailed))) }
        #expect(script.lastActions == expected)
        _ = script.signOut(waiter: 50)
        #expect(script.lastActions == [Action.resume([50], .failed(.sessionFailed))])
        _ = script.deleteAccount(waiter: 51)
        #expect(script.lastActions == [Action.resume([51], .failed(.sessionFailed))])
        #expect(script.machine.handout == nil)
    }

    @Test("a refresh procedure's inconsistency stops the machine too")
    func procedureInconsistency() {
        var script = Script.makeRefreshing(waiters: [1])
        _ = script.refreshFailed(.inconsistent("a record was loaded in the wrong phase"))
        #expect(
            script.lastActions == [
                .transition(from: .refreshing, to: .signedOut, reason: .internalFailure), .emit(.sessionFailed),
                .resume([1], .failed(.sessionFailed)),
            ])
    }

    @Test("a guest bootstrap procedure's inconsistency stops the machine too")
    func guestProcedureInconsistency() {
        var script = Script.makeSignedOut()
        _ = script.startGuest(waiter: 1)
        _ = script.guestBootstrapFailed(.guestBootstrapFailed(.inconsistent("a save finished in the wrong phase")))
        #expect(
            script.lastActions == [
                .transition(from: .verifying, to: .signedOut, reason: .internalFailure), .emit(.sessionFailed),
                .resume([1], .failed(.sessionFailed)),
            ])
        #expect(SessionError.guestBootstrapFailed(.inconsistent("x")).category == .system)
    }
}
