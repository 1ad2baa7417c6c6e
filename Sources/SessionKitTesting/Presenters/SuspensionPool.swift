import SessionKit
import SessionKitCore

/// Calls suspended until their task is cancelled (a simulated app that never answers), and the
/// tests waiting until enough of them are.
///
/// Each suspended call gets an id first and registers a cancellation handler, so a cancellation
/// that arrives before the call suspends still ends it, exactly once.
final class SuspensionPool: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var suspended: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelledEarly: Set<UInt64> = []
        var watchers: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]

        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            let ready = watchers.filter { $0.value.count <= suspended.count }
            for id in ready.keys { watchers.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }

        mutating func takeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    private let state = Locked(State())

    /// How many calls are suspended right now.
    var count: Int {
        state.withLock { $0.suspended.count }
    }

    /// Suspends the calling task until it is cancelled.
    func suspendUntilCancelled() async {
        let id = state.withLock { $0.takeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    if state.cancelledEarly.remove(id) != nil { return nil }
                    state.suspended[id] = continuation
                    return state.takeSatisfiedWatchers()
                }
                guard let ready else {
                    continuation.resume()
                    return
                }
                for watcher in ready { watcher.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let continuation = state.suspended.removeValue(forKey: id) { return continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            continuation?.resume()
        }
    }

    /// Returns once at least `count` calls are suspended, or when the calling task is cancelled.
    func waitForSuspended(count: Int) async {
        let id = state.withLock { $0.takeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { state -> Bool in
                    if state.suspended.count >= count || state.cancelledEarly.remove(id) != nil { return true }
                    state.watchers[id] = (count, continuation)
                    return false
                }
                if satisfied { continuation.resume() }
            }
        } onCancel: {
            let watcher = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let watcher = state.watchers.removeValue(forKey: id) { return watcher.continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            watcher?.resume()
        }
    }
}
