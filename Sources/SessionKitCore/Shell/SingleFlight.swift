/// Shares one piece of work among every caller that asks for it while it runs.
///
/// The first caller starts the work as a child of the ``TaskOwner`` (never in its own task, so
/// its cancellation cannot fail the others), raced against the flight's ``CancelToken``; later
/// callers join it. Every caller waits as a stored
/// continuation with an id of its own and a cancellation handler: a cancelled caller leaves with
/// `cancelled` and the others still get the answer. The work itself is cancelled only when its last
/// caller leaves, or when the owner shuts down. Callers are answered in arrival order.
package final class SingleFlight<Value: Sendable, Failure: Error>: Sendable {
    private typealias Continuation = UnsafeContinuation<Result<Value, Failure>, Never>

    private struct Flight {
        let id: UInt64
        var waiters: [(id: UInt64, continuation: Continuation)] = []
        let cancel = CancelToken()
    }

    private enum Arrival {
        /// Cancelled before it could join.
        case refused
        case joined
        case started(UInt64, CancelToken)
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
                let arrival: Arrival = state.withLock { state in
                    if Task.isCancelled { return .refused }
                    if state.flight != nil {
                        state.flight?.waiters.append((callerID, continuation))
                        return .joined
                    }
                    state.nextID += 1
                    state.flightsStarted += 1
                    let flight = Flight(id: state.nextID, waiters: [(callerID, continuation)])
                    state.flight = flight
                    return .started(flight.id, flight.cancel)
                }
                switch arrival {
                case .refused:
                    continuation.resume(returning: .failure(cancelled))
                case .joined:
                    changes.notify()
                case .started(let flightID, let token):
                    changes.notify()
                    launch(flightID, cancelledBy: token, work, cancelled: cancelled)
                }
            }
        } onCancel: {
            leave(callerID, cancelled: cancelled)
        }
    }

    /// Cancels the work in flight and answers its callers with `cancelled`; the next call starts anew.
    package func cancelFlight(cancelled: Failure) {
        let (waiters, token) = state.withLock { state -> ([Continuation], CancelToken?) in
            guard let flight = state.flight else { return ([], nil) }
            state.flight = nil
            return (flight.waiters.map(\.continuation), flight.cancel)
        }
        token?.cancel()
        for waiter in waiters { waiter.resume(returning: .failure(cancelled)) }
        changes.notify()
    }

    private func launch(
        _ flightID: UInt64, cancelledBy token: CancelToken, _ work: @escaping @Sendable () async -> Result<Value, Failure>,
        cancelled: Failure
    ) {
        let started = owner.spawn(cancelledBy: token) { [self] in
            finish(flightID, with: await work())
        }
        // The owner is shut down: nothing can run.
        if !started { finish(flightID, with: .failure(cancelled)) }
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
        let (waiter, orphan): (Continuation?, CancelToken?) = state.withLock { state in
            guard var flight = state.flight, let index = flight.waiters.firstIndex(where: { $0.id == callerID }) else {
                return (nil, nil)
            }
            let waiter = flight.waiters.remove(at: index).continuation
            if flight.waiters.isEmpty {
                // Nobody wants the answer any more: the work stops, and the next caller starts anew.
                state.flight = nil
                return (waiter, flight.cancel)
            }
            state.flight = flight
            return (waiter, nil)
        }
        orphan?.cancel()
        waiter?.resume(returning: .failure(cancelled))
        changes.notify()
    }
}
