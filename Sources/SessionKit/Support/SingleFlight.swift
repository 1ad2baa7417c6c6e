package import SessionKitCore

/// Shares one piece of work among every caller that asks for it while it runs.
///
/// The first caller starts the work as a child of the ``TaskOwner`` (never in its own task, so
/// its cancellation cannot fail the others); later callers join it. Every caller waits as a stored
/// continuation with an id of its own and a cancellation handler: a cancelled caller leaves with
/// `cancelled` and the others still get the answer. The work itself is cancelled only when its last
/// caller leaves, or when the owner shuts down. Callers are answered in arrival order.
package final class SingleFlight<Value: Sendable, Failure: Error>: Sendable {
    private typealias Continuation = UnsafeContinuation<Result<Value, Failure>, Never>

    private struct Flight {
        let id: UInt64
        var waiters: [(id: UInt64, continuation: Continuation)] = []
        var child: TaskOwner.ChildID?
    }

    private struct State {
        var flight: Flight?
        var nextID: UInt64 = 0
        var flightsStarted = 0
    }

    private let owner: TaskOwner
    private let state = Locked(State())
    /// Notified after every change of the waiting callers, for tests that wait on them.
    package let changes = SessionChangeFeed()

    /// Work shared through `owner`'s children.
    package init(owner: TaskOwner) {
        self.owner = owner
    }

    /// How many callers wait for the work in flight.
    package var waitingCallerCount: Int {
        state.withLock { $0.flight?.waiters.count ?? 0 }
    }

    /// How many times the work was started.
    package var flightsStarted: Int {
        state.withLock { $0.flightsStarted }
    }

    /// Joins the work in flight, or starts `work` when none is. Returns its result, or `cancelled`
    /// when the calling task is cancelled first, or when the owner was shut down.
    package func run(
        cancelled: Failure, _ work: @escaping @Sendable () async -> Result<Value, Failure>
    ) async -> Result<Value, Failure> {
        let callerID = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: Continuation) in
                let start: UInt64? = state.withLock { state in
                    if Task.isCancelled { return nil }
                    if state.flight != nil {
                        state.flight?.waiters.append((callerID, continuation))
                        return 0
                    }
                    state.nextID += 1
                    state.flightsStarted += 1
                    state.flight = Flight(id: state.nextID, waiters: [(callerID, continuation)])
                    return state.nextID
                }
                switch start {
                case nil:
                    continuation.resume(returning: .failure(cancelled))
                case 0?:
                    changes.notify()
                case let flightID?:
                    changes.notify()
                    launch(flightID, work, cancelled: cancelled)
                }
            }
        } onCancel: {
            leave(callerID, cancelled: cancelled)
        }
    }

    /// Cancels the work in flight and answers its callers with `cancelled`; the next call starts anew.
    package func cancelFlight(cancelled: Failure) {
        let (waiters, child) = state.withLock { state -> ([Continuation], TaskOwner.ChildID?) in
            guard let flight = state.flight else { return ([], nil) }
            state.flight = nil
            return (flight.waiters.map(\.continuation), flight.child)
        }
        if let child { owner.cancel(child) }
        for waiter in waiters { waiter.resume(returning: .failure(cancelled)) }
        changes.notify()
    }

    private func launch(_ flightID: UInt64, _ work: @escaping @Sendable () async -> Result<Value, Failure>, cancelled: Failure) {
        // The first caller waits for it at once: it starts on the caller's thread.
        let child = owner.spawn(cancellable: true, startingHere: true) { [self] in
            finish(flightID, with: await work())
        }
        guard let child else {
            // The owner is shut down: nothing can run.
            finish(flightID, with: .failure(cancelled))
            return
        }
        let stale: Bool = state.withLock { state in
            guard state.flight?.id == flightID else { return true }
            state.flight?.child = child
            return false
        }
        // Every caller left before the child could be recorded: stop it.
        if stale { owner.cancel(child) }
    }

    private func finish(_ flightID: UInt64, with result: Result<Value, Failure>) {
        let waiters: [Continuation] = state.withLock { state in
            guard let flight = state.flight, flight.id == flightID else { return [] }
            state.flight = nil
            return flight.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: result) }
        changes.notify()
    }

    private func leave(_ callerID: UInt64, cancelled: Failure) {
        let (waiter, orphan): (Continuation?, TaskOwner.ChildID?) = state.withLock { state in
            guard var flight = state.flight, let index = flight.waiters.firstIndex(where: { $0.id == callerID }) else {
                return (nil, nil)
            }
            let waiter = flight.waiters.remove(at: index).continuation
            if flight.waiters.isEmpty {
                // Nobody wants the answer any more: the work stops, and the next caller starts anew.
                state.flight = nil
                return (waiter, flight.child)
            }
            state.flight = flight
            return (waiter, nil)
        }
        if let orphan { owner.cancel(orphan) }
        waiter?.resume(returning: .failure(cancelled))
        changes.notify()
    }
}
