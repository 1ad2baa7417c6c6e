/// Ends a piece of a shell's work on its own: a timer that is no longer wanted, a presentation
/// the handoff left, a refresh a sign-out overtook.
///
/// The state machine makes the token when it orders the work, keeps it in the payload of the
/// stage the work belongs to, and hands it back in the action that cancels the work. The shell
/// runs the work with ``TaskOwner/spawn(cancelledBy:_:)``, which races it against the token
/// inside its own child of the owner's group. One token may cover several runs (a device
/// sign-in's presentation and each of its polls): ``cancel()`` ends every run under it, now and
/// later.
package final class CancelToken: Sendable {
    /// One run of work under the token, seen from the child that races it.
    private enum Phase {
        /// The work runs; the child has not parked yet.
        case running
        /// The child waits for the work's end or the token's cancellation.
        case parked(UnsafeContinuation<Void, Never>)
        /// The work ended before the child parked.
        case ended
    }

    private struct Racer {
        var phase: Phase
        /// Told while a cancellation is on its way to this run's work.
        let settling: CancellationSettling?
    }

    private struct State {
        var cancelled = false
        var racers: [UInt64: Racer] = [:]
        var nextRacer: UInt64 = 0
        /// Runs a cancellation was sent to and that have not cancelled their work yet.
        var propagating: [UInt64: CancellationSettling] = [:]
    }

    private let state = Locked(State())

    /// A token nothing has cancelled.
    package init() {}

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool {
        state.withLock { $0.cancelled }
    }

    /// Cancels every run under the token, at once, and every later one from its start.
    package func cancel() {
        let (parked, settling): ([UnsafeContinuation<Void, Never>], [CancellationSettling]) = state.withLock { state in
            state.cancelled = true
            defer { state.racers = [:] }
            var parked: [UnsafeContinuation<Void, Never>] = []
            var settling: [CancellationSettling] = []
            for (id, racer) in state.racers {
                if case .ended = racer.phase { continue }
                if case .parked(let continuation) = racer.phase { parked.append(continuation) }
                if let tracker = racer.settling {
                    state.propagating[id] = tracker
                    settling.append(tracker)
                }
            }
            return (parked, settling)
        }
        for tracker in settling { tracker.began() }
        for continuation in parked { continuation.resume() }
    }

    /// Runs `work` in a child task of the caller and returns once it has ended; the token's
    /// cancellation, or the caller's, cancels it. Work cancelled before it starts still runs,
    /// cancelled from its first line, so it reports back like work cancelled while it runs.
    ///
    /// A cancellation reaches the work one hop later, on the racing task's thread; `settling`
    /// counts it until then, so a test can wait until every cancellation has landed (a cancelled
    /// timer's sleep is off the clock) before it moves time.
    package func race(_ work: @escaping @Sendable () async -> Void, settling: CancellationSettling? = nil) async {
        let racer: UInt64 = state.withLock { state in
            state.nextRacer += 1
            if !state.cancelled { state.racers[state.nextRacer] = Racer(phase: .running, settling: settling) }
            return state.nextRacer
        }
        await withTaskGroup(of: Void.self) { group in
            if isCancelled { group.cancelAll() }
            if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
                group.addImmediateTask {
                    await work()
                    self.release(racer)
                }
            } else {
                group.addTask {
                    await work()
                    self.release(racer)
                }
            }
            await park(racer)
            group.cancelAll()
        }
        state.withLock { $0.propagating.removeValue(forKey: racer) }?.ended()
    }

    /// The racer's work ended: its child stops waiting, or will not start to.
    private func release(_ racer: UInt64) {
        let parked: UnsafeContinuation<Void, Never>? = state.withLock { state in
            switch state.racers[racer]?.phase {
            case .parked(let continuation):
                state.racers[racer] = nil
                return continuation
            case .running:
                state.racers[racer]?.phase = .ended
                return nil
            case .ended, nil:
                return nil
            }
        }
        parked?.resume()
    }

    /// Returns once the token is cancelled, the racer's work has ended, or the calling task is
    /// cancelled (a shutdown: the group's cancellation has reached the work already).
    private func park(_ racer: UInt64) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let parked: Bool = state.withLock { state in
                    guard case .running = state.racers[racer]?.phase, !Task.isCancelled else {
                        state.racers[racer] = nil
                        return false
                    }
                    state.racers[racer]?.phase = .parked(continuation)
                    return true
                }
                if !parked { continuation.resume() }
            }
        } onCancel: {
            let parked: UnsafeContinuation<Void, Never>? = state.withLock { state in
                guard case .parked(let continuation) = state.racers[racer]?.phase else { return nil }
                state.racers[racer] = nil
                return continuation
            }
            parked?.resume()
        }
    }
}

/// Counts the cancellations on their way to an owner's work (``CancelToken/race(_:settling:)``).
package final class CancellationSettling: Sendable {
    private let count = Locked(0)
    private let changes: SessionChangeFeed

    /// Tells `changes` whenever the last cancellation on its way has landed.
    package init(changes: SessionChangeFeed) {
        self.changes = changes
    }

    /// How many cancellations were sent and have not reached their work yet.
    package var inFlight: Int {
        count.withLock { $0 }
    }

    func began() {
        count.withLock { $0 += 1 }
    }

    func ended() {
        let settled = count.withLock { count in
            count -= 1
            return count == 0
        }
        if settled { changes.notify() }
    }
}
