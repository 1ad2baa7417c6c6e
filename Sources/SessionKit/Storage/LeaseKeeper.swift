package import SessionKitCore
import Synchronization

/// The exclusive lease of one credential store: in-process exclusion plus, optionally, a
/// cross-process lock.
///
/// Tasks in this process queue on an ``AsyncMutex``; only the task at the front then takes the
/// cross-process lock, so at most one thread per store ever waits on another process.
///
/// The lease is reentrant along the task tree: a `withLease` on the same keeper from inside the
/// body (or from a child task of it) runs directly instead of waiting for itself forever. An
/// unstructured task started inside the body inherits that right only while the lease is held.
package final class LeaseKeeper: Sendable {
    /// Takes the cross-process lock and returns the closure that gives it back.
    package typealias CrossProcessAcquire = @Sendable () async throws -> @Sendable () -> Void

    private final class Token: Sendable {
        let keeper: ObjectIdentifier
        let isHeld = Atomic(true)

        init(keeper: ObjectIdentifier) {
            self.keeper = keeper
        }
    }

    private struct WeakKeeper {
        weak var keeper: LeaseKeeper?
    }

    @TaskLocal private static var heldTokens: [Token] = []
    private static let registry = Locked<[String: WeakKeeper]>([:])

    private let mutex = AsyncMutex()
    private let crossProcess: CrossProcessAcquire?

    /// Creates a keeper; `crossProcess` is nil for a store that lives in one process only.
    package init(crossProcess: CrossProcessAcquire?) {
        self.crossProcess = crossProcess
    }

    /// The keeper registered under `key` in this process, made by `make` when there is none.
    ///
    /// Two store values for the same location then share one lease: they exclude each other
    /// without a thread blocked on the cross-process lock, and nesting one inside the other does
    /// not deadlock.
    package static func shared(forKey key: String, _ make: () -> LeaseKeeper) -> LeaseKeeper {
        registry.withLock { table in
            if let existing = table[key]?.keeper { return existing }
            table = table.filter { $0.value.keeper != nil }
            let keeper = make()
            table[key] = WeakKeeper(keeper: keeper)
            return keeper
        }
    }

    /// Whether some task holds the lease right now.
    package var isHeld: Bool { mutex.isLocked }

    /// How many tasks of this process wait for the lease.
    package var waiterCount: Int { mutex.waiterCount }

    /// Notified after every change of the holder or the waiters, for tests that wait on them.
    package var changes: SessionChangeFeed { mutex.changes }

    /// Runs `body` while holding the lease.
    ///
    /// Throws `CancellationError` if the task is cancelled while waiting (the body does not run),
    /// the cross-process acquisition's error, or the body's error.
    package func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        let identity = ObjectIdentifier(self)
        if Self.heldTokens.contains(where: { $0.keeper == identity && $0.isHeld.load(ordering: .acquiring) }) {
            return try await body()
        }
        try await mutex.lock()
        let releaseCrossProcess: (@Sendable () -> Void)?
        do {
            releaseCrossProcess = try await crossProcess?()
        } catch {
            mutex.unlock()
            throw error
        }
        let token = Token(keeper: identity)
        defer {
            token.isHeld.store(false, ordering: .releasing)
            releaseCrossProcess?()
            mutex.unlock()
        }
        return try await Self.$heldTokens.withValue(Self.heldTokens + [token]) {
            try await body()
        }
    }
}
