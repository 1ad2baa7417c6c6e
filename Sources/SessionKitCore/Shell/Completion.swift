/// Something tasks can wait for the end of (an exchange, a reset, a shutdown), without holding a
/// task.
package final class Completion: Sendable {
    private struct State {
        var done = false
        var waiters: [UInt64: UnsafeContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Not completed yet.
    package init() {}

    /// Whether ``complete()`` was called.
    package var isComplete: Bool {
        state.withLock { $0.done }
    }

    /// Marks it ended; every wait returns, now and later.
    package func complete() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until ``complete()``, or until the calling task is cancelled (only this wait ends).
    package func wait() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.done || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
