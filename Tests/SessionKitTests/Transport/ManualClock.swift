import SessionKit
import Synchronization

/// A clock that moves only when a test advances it, and lets the test wait until code under test
/// is really asleep on it (so the test never guesses with yields or real sleeps).
final class ManualClock: Clock, Sendable {
    /// A point on the manual time line, measured from the clock's creation.
    struct Instant: InstantProtocol {
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private enum Sleeper {
        case cancelledEarly
        case waiting(deadline: Instant, CheckedContinuation<Void, any Error>)
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextIdentifier = 0
        var sleepers: [Int: Sleeper] = [:]
        var sleeperWatchers: [(count: Int, CheckedContinuation<Void, Never>)] = []

        var waitingCount: Int {
            sleepers.values.reduce(0) { count, sleeper in
                if case .waiting = sleeper { return count + 1 }
                return count
            }
        }

        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let waiting = waitingCount
            let satisfied = sleeperWatchers.filter { $0.count <= waiting }.map(\.1)
            sleeperWatchers.removeAll { $0.count <= waiting }
            return satisfied
        }
    }

    private let state = Locked(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many sleeps are pending right now.
    var sleeperCount: Int { state.withLock { $0.waitingCount } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let identifier = state.withLock { state in
            defer { state.nextIdentifier += 1 }
            return state.nextIdentifier
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Start {
                    case elapsed, cancelled
                    case waiting([CheckedContinuation<Void, Never>])
                }
                let start = state.withLock { state -> Start in
                    if case .cancelledEarly = state.sleepers[identifier] {
                        state.sleepers[identifier] = nil
                        return .cancelled
                    }
                    if deadline <= state.now { return .elapsed }
                    state.sleepers[identifier] = .waiting(deadline: deadline, continuation)
                    return .waiting(state.takeSatisfiedWatchers())
                }
                switch start {
                case .elapsed: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting(let watchers): for watcher in watchers { watcher.resume() }
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                switch state.sleepers[identifier] {
                case .waiting(_, let continuation):
                    state.sleepers[identifier] = nil
                    return continuation
                case .cancelledEarly:
                    return nil
                case nil:
                    state.sleepers[identifier] = .cancelledEarly
                    return nil
                }
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` sleeps are pending.
    func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state -> Bool in
                if state.waitingCount >= count { return true }
                state.sleeperWatchers.append((count, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Moves time forward and wakes every sleep whose deadline has come.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            var due: [CheckedContinuation<Void, any Error>] = []
            for (identifier, sleeper) in state.sleepers {
                if case .waiting(let deadline, let continuation) = sleeper, deadline <= state.now {
                    state.sleepers[identifier] = nil
                    due.append(continuation)
                }
            }
            return due
        }
        for sleeper in due { sleeper.resume() }
    }
}
