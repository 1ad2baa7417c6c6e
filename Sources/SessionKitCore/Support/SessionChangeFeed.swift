import Synchronization

/// Tells the test kit that a session's machine moved (a stage, a waiting caller), so tests can
/// wait on conditions instead of polling.
///
/// A feed stays silent until a waiter arms it: in an app, and in a benchmark that never waits on
/// it, a notification is one relaxed load.
package final class SessionChangeFeed: Sendable {
    private let handlers = Locked<[@Sendable () -> Void]>([])
    private let armed = Atomic(false)

    package init() {}

    /// Calls `handler` after every later change, once the feed is armed.
    package func add(_ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    /// Starts notifying. A waiter arms the feed before it first checks its condition: a change made
    /// after that check (under the lock the check read through) sees the feed armed.
    package func arm() {
        armed.store(true, ordering: .sequentiallyConsistent)
    }

    /// Calls the handlers, if the feed is armed.
    package func notify() {
        guard armed.load(ordering: .relaxed) else { return }
        let current = handlers.withLock { $0 }
        for handler in current { handler() }
    }
}
