/// Tells the test kit that a session's machine moved (a stage, a waiting caller), so tests can
/// wait on conditions instead of polling.
///
/// Nobody listens in an app: a notification is then one lock and a nil check.
package final class SessionChangeFeed: Sendable {
    private let handlers = Locked<[@Sendable () -> Void]>([])

    package init() {}

    /// Calls `handler` after every later change.
    package func add(_ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    package func notify() {
        let current = handlers.withLock { $0 }
        for handler in current { handler() }
    }
}
