import Synchronization

/// What a shell keeps around its pure machine (the handoff coordinators, the high-assurance
/// vault): one lock around the machine and
/// everything beside it, one ordered action runner, one ``TaskOwner``, and the subscribers and
/// observers of its events.
///
/// Every input is ``modify(_:)``: one step of the machine under the lock, whose actions are queued
/// under the same lock and performed in order, by one thread at a time, after the lock is
/// released. The ``ShellRunner`` performs them; events are published here. Long work runs as a
/// child of ``owner`` and reports back as another input; work that must end on its own runs under
/// a `CancelToken` the machine keeps and hands back in its cancel action.
package final class MachineShell<Runner: ShellRunner>: Sendable {
    package typealias Machine = Runner.Machine
    package typealias Action = Machine.Action
    package typealias Event = Machine.Event

    private struct Subscriber: Sendable {
        var continuation: AsyncStream<Event>.Continuation
        /// The first action index this subscriber hears of.
        var from: UInt64
    }

    private struct Observer: Sendable {
        var call: @Sendable (Event) -> Void
        var from: UInt64
    }

    private struct State {
        var machine: Machine
        var isShutDown = false
        /// Actions produced and not performed yet, each with its position among all actions ever
        /// produced (so a subscriber added in between hears exactly the later events).
        var pending: [(index: UInt64, action: Action)] = []
        var produced: UInt64 = 0
        /// Whether some thread performs `pending`; only one ever does, so actions run in order.
        var performing = false
        /// Waiting until no thread performs (a shutdown, until its answers are out).
        var idleWaiters: [UnsafeContinuation<Void, Never>] = []
        var subscribers: [UInt64: Subscriber] = [:]
        var observers: [Observer] = []
        var nextSubscriber: UInt64 = 0

        /// Queues `actions`; returns whether the caller must now perform the queue.
        mutating func enqueue(_ actions: [Action]) -> Bool {
            for action in actions {
                pending.append((produced, action))
                produced += 1
            }
            guard !performing, !pending.isEmpty else { return false }
            performing = true
            return true
        }

        /// The next batch to perform, or (the performer stepping down) whoever waited for that.
        mutating func takePending() -> Next {
            guard pending.isEmpty else {
                defer { pending.removeAll(keepingCapacity: true) }
                return .batch(pending)
            }
            performing = false
            defer { idleWaiters = [] }
            return .idle(idleWaiters)
        }

        func audience(of index: UInt64) -> (observers: [@Sendable (Event) -> Void], streams: [AsyncStream<Event>.Continuation]) {
            (observers.filter { $0.from <= index }.map(\.call), subscribers.values.filter { $0.from <= index }.map(\.continuation))
        }
    }

    /// What the performer does next.
    private enum Next {
        /// Perform these actions.
        case batch([(index: UInt64, action: Action)])
        /// Step down, resuming whoever waited for the runner to be idle.
        case idle([UnsafeContinuation<Void, Never>])
    }

    private let state: Locked<State>
    private let runner: Runner
    /// The task owner and the change feed, which the test kit reads (``ShellHost``).
    package let work = ShellWork()
    private let lastCaller = Atomic<UInt64>(0)

    package init(_ machine: sending Machine, runner: Runner) {
        state = Locked(State(machine: machine))
        self.runner = runner
    }

    /// Owns every task the coordinator starts; ``shutdown()`` ends them all.
    package var owner: TaskOwner { work.owner }

    /// Notified after every step and whenever a child starts or ends, for the test kit's waits.
    private var changes: SessionChangeFeed { work.changes }

    deinit {
        // Nobody holds the coordinator any more, so no caller waits on it (a waiting caller holds
        // it): its children, which hold the shell only weakly, are cancelled.
        owner.abandon()
    }

    /// Reads the machine under the lock.
    package func read<Value: Sendable>(_ body: (Machine) -> Value) -> Value {
        state.withLock { body($0.machine) }
    }

    // MARK: - Running the machine

    /// Runs one step of the machine and performs the actions it returns; `false`, having done
    /// nothing, when `step` returns `nil`.
    @discardableResult
    package func modify(_ step: (inout Machine) -> [Action]?) -> Bool {
        let (stepped, mustPerform): (Bool, Bool) = state.withLock { state in
            guard let actions = step(&state.machine) else { return (false, false) }
            return (true, state.enqueue(actions))
        }
        if mustPerform {
            performPending()
        } else if stepped {
            changes.notify()
        }
        return stepped
    }

    /// Performs queued actions until none is left; a step taken meanwhile, on any thread, queues
    /// its actions for this loop.
    private func performPending() {
        while true {
            switch state.withLock({ $0.takePending() }) {
            case .batch(let batch):
                for (index, action) in batch {
                    if let event = Machine.event(in: action) {
                        publish(event, index: index)
                    } else {
                        runner.perform(action, in: self)
                    }
                }
                changes.notify()
            case .idle(let waiters):
                for waiter in waiters { waiter.resume() }
                return
            }
        }
    }

    /// Returns once no thread performs actions: every answer queued before it is out.
    private func waitUntilIdle() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let idle: Bool = state.withLock { state in
                guard state.performing else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Suspends the caller as a waiter the machine answers exactly once: `register` feeds it to
    /// the machine under the lock, with an id of its own. Cancelling the calling task feeds
    /// ``ShellMachine/callerCancelled(_:)`` for this caller only; a task cancelled before it
    /// registers never reaches the machine and gets `cancelled`.
    package func suspend<Value: Sendable>(
        cancelled: Value, _ register: (inout Machine, UInt64, CheckedContinuation<Value, Never>) -> [Action]
    ) async -> Value {
        let id = lastCaller.add(1, ordering: .relaxed).newValue
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                // Under the lock, so a cancellation is either seen here or finds the caller waiting.
                let registered = modify { machine in Task.isCancelled ? nil : register(&machine, id, continuation) }
                if !registered { continuation.resume(returning: cancelled) }
            }
        } onCancel: {
            modify { $0.callerCancelled(id) }
        }
    }

    /// Starts a timer on `clock` that calls `fired` after `duration`, unless `token` ends it first.
    package func startTimer<C: Clock>(
        after duration: Duration, on clock: C, cancelledBy token: CancelToken, fired: @escaping @Sendable () -> Void
    ) where C.Duration == Duration {
        owner.spawn(cancelledBy: token) {
            do {
                try await clock.sleep(for: duration)
            } catch {
                // Cancelled: the machine ended the wait, or the coordinator shut down.
                return
            }
            fired()
        }
    }

    // MARK: - Events

    /// A stream of every later event, in order; it ends at shutdown.
    package func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let id: UInt64? = state.withLock { state in
            guard !state.isShutDown else { return nil }
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = Subscriber(continuation: continuation, from: state.produced)
            return state.nextSubscriber
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Calls `observer` for every later event, in order, on the thread performing actions.
    package func addObserver(_ observer: @escaping @Sendable (Event) -> Void) {
        state.withLock { state in state.observers.append(Observer(call: observer, from: state.produced)) }
    }

    private func publish(_ event: Event, index: UInt64) {
        let (observers, streams) = state.withLock { $0.audience(of: index) }
        for observer in observers { observer(event) }
        for stream in streams { stream.yield(event) }
    }

    // MARK: - Shutting down

    /// Answers every waiting caller (the machine's ``ShellMachine/shutDown()``), ends the event
    /// streams, cancels every child and returns once every answer is out and every child has
    /// ended. Later calls are answered by the stopped machine.
    package func shutdown() async {
        modify { $0.shutDown() }
        await waitUntilIdle()
        let subscribers: [AsyncStream<Event>.Continuation] = state.withLock { state in
            state.isShutDown = true
            defer { state.subscribers = [:] }
            return state.subscribers.values.map(\.continuation)
        }
        // Outside the lock: finishing a stream runs its termination handler, which takes it.
        for subscriber in subscribers { subscriber.finish() }
        await owner.shutdown()
        changes.notify()
    }
}
