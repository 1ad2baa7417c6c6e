import Testing

@testable import SessionKit

extension StateMachineTests {
    /// The machine keeps the handle of every piece of work it may end on its own, and the action
    /// that ends the work carries the very handle the action that started it did. Scripts compare
    /// actions with handles equal; these compare the tokens by identity.
    @Suite struct SessionStateMachineCancelHandleTests {
        typealias Script = MachineScript
        typealias Action = Script.Machine.Action

        @Test func aSignOutEndsTheRefreshAttemptItOvertook() throws {
            var m = Script.makeActive(expiresIn: 30)
            let ordered = try #require(Self.refreshOrder(in: m.tokenRequested(waiter: 1)))
            let ended = try #require(Self.cancelledRefresh(in: m.signOut(waiter: 2)))
            #expect(ended.token === ordered.cancel.token)
        }

        @Test func aRetryIsANewAttemptWithAHandleOfItsOwn() throws {
            var m = Script.makeActive(expiresIn: 30)
            let first = try #require(Self.refreshOrder(in: m.tokenRequested(waiter: 1)))
            let backoff = m.refreshFailed(.transient(.provider(.transport(.connectionFailed("offline"))), retryIn: .seconds(2)), at: 1)
            let timer = try #require(
                backoff.lazy.compactMap { action -> TimerID? in
                    if case .startTimer(let id, _) = action { return id }
                    return nil
                }.first)
            let second = try #require(Self.refreshOrder(in: m.timerFired(timer)))
            #expect(second.cancel.token !== first.cancel.token)
            let ended = try #require(Self.cancelledRefresh(in: m.signOut(waiter: 2)))
            #expect(ended.token === second.cancel.token)
        }

        @Test func theHandoffEndsThePresentationItStarted() throws {
            var m = Script.makeSignedOut()
            let presented = try #require(
                m.signIn(waiter: 1).lazy.compactMap { action -> CancelHandle? in
                    if case .present(_, _, let cancel) = action { return cancel }
                    return nil
                }.first)
            let ended = try #require(Self.cancelledPresentation(in: m.callback()))
            #expect(ended.token === presented.token)
        }

        @Test func aTimerIsCancelledThroughItsOwnHandle() throws {
            var m = Script.makeSignedOut()
            let started = try #require(
                m.signIn(waiter: 1).lazy.compactMap { action -> TimerID? in
                    if case .startTimer(let id, _) = action { return id }
                    return nil
                }.first)
            let cancelled = try #require(
                m.callback().lazy.compactMap { action -> TimerID? in
                    if case .cancelTimer(let id) = action { return id }
                    return nil
                }.first)
            #expect(cancelled.cancel.token === started.cancel.token)
        }

        @Test func shutdownEndsOnlyWorkTheStageHolds() throws {
            var refreshing = Script.makeActive(expiresIn: 30)
            let ordered = try #require(Self.refreshOrder(in: refreshing.tokenRequested(waiter: 1)))
            let ended = try #require(Self.cancelledRefresh(in: refreshing.shutDown()))
            #expect(ended.token === ordered.cancel.token)
            var active = Script.makeActive()
            let actions = active.shutDown()
            #expect(Self.cancelledRefresh(in: actions) == nil)
            #expect(Self.cancelledPresentation(in: actions) == nil)
        }

        static func refreshOrder(in actions: [Action]) -> Script.Machine.RefreshOrder? {
            actions.lazy.compactMap { action -> Script.Machine.RefreshOrder? in
                if case .refresh(let order) = action { return order }
                return nil
            }.first
        }

        static func cancelledRefresh(in actions: [Action]) -> CancelHandle? {
            actions.lazy.compactMap { action -> CancelHandle? in
                if case .cancelRefresh(let handle) = action { return handle }
                return nil
            }.first
        }

        static func cancelledPresentation(in actions: [Action]) -> CancelHandle? {
            actions.lazy.compactMap { action -> CancelHandle? in
                if case .cancelPresenter(let handle) = action { return handle }
                return nil
            }.first
        }
    }
}
