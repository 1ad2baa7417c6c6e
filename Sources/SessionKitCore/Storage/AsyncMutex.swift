import Synchronization

/// A first-come, first-served lock for tasks: waiting suspends the task instead of blocking a thread.
///
/// Waiters are stored continuations, each with its own id, so a cancelled waiter removes only
/// itself and every waiter is resumed exactly once. Unlocking hands the lock straight to the
/// oldest waiter, so a stream of newcomers cannot starve it.
package final class AsyncMutex: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var isLocked = false
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private enum Admission {
        case acquired
        case cancelled
        case waiting
    }

    private let state = Locked(State())
    /// Notified after every change of the holder or the waiters, for tests that wait on them.
    package let changes = SessionChangeFeed()

    /// Creates an unlocked mutex.
    package init() {}

    /// Whether some task holds the lock right now.
    package var isLocked: Bool { state.withLock { $0.isLocked } }

    /// How many tasks are waiting for the lock.
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Waits until the lock is ours.
    ///
    /// Throws `CancellationError` when the task is cancelled before the lock was handed to it; the
    /// lock is then not held.
    package func lock() async throws {
        let id = state.withLock { state in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Deciding and enqueueing in one critical section: an unlock in between would
                // otherwise find no waiter and leave this one suspended forever.
                let admission = state.withLock { state -> Admission in
                    if !state.isLocked {
                        state.isLocked = true
                        return .acquired
                    }
                    if Task.isCancelled { return .cancelled }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .waiting
                }
                switch admission {
                case .acquired: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .waiting: break
                }
                changes.notify()
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            cancelled?.resume(throwing: CancellationError())
            changes.notify()
        }
    }

    /// Gives the lock to the oldest waiter, or frees it when nobody waits.
    package func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            precondition(state.isLocked, "AsyncMutex unlocked while not locked")
            if state.waiters.isEmpty {
                state.isLocked = false
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        next?.resume()
        changes.notify()
    }
}
