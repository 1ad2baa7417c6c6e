public import SessionKit
package import SessionKitCore

/// A device whose protected data a test locks and unlocks (iOS: before the first unlock, or while
/// the system prewarms the app).
public final class ScriptedProtectedData: ProtectedDataAvailability, Sendable {
    private struct State {
        var available: Bool
        var nextID: UInt64 = 0
        var waiting: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: Locked<State>
    /// Notified whenever a wait begins or ends, for tests that wait until the session waits.
    package let changes = SessionChangeFeed()

    /// Creates a device that is unlocked or (`available: false`) still locked.
    public init(available: Bool) {
        state = Locked(State(available: available))
    }

    /// How many calls wait for the unlock right now.
    public var waitingCount: Int {
        state.withLock { $0.waiting.count }
    }

    /// Unlocks the device: every wait returns.
    public func unlock() {
        let waiting = state.withLock { state in
            state.available = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for continuation in waiting { continuation.resume() }
        changes.notify()
    }

    /// Locks the device again.
    public func lock() {
        state.withLock { $0.available = false }
    }

    public func isAvailable() async -> Bool {
        state.withLock { $0.available }
    }

    public func waitUntilAvailable() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.available || state.cancelledEarly.remove(id) != nil { return true }
                    state.waiting[id] = continuation
                    return false
                }
                if now { continuation.resume() }
                changes.notify()
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let continuation = state.waiting.removeValue(forKey: id) { return continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            continuation?.resume()
        }
        changes.notify()
    }
}

/// Background tasks as a test sees them: every task begun, whether and by whom it was ended, and
/// a way to expire them as the system would.
public final class RecordingBackgroundTasks: BackgroundTaskProvider, Sendable {
    /// One task begun.
    public struct Entry: Sendable, Equatable {
        /// Its name.
        public var name: String
        /// How many times it was ended (exactly one once it is over; more is a bug).
        public var endCount: Int
        /// Whether the system expired it before the work ended.
        public var expired: Bool

        /// Describes a task, for comparisons.
        public init(name: String, endCount: Int, expired: Bool) {
            self.name = name
            self.endCount = endCount
            self.expired = expired
        }
    }

    private struct State {
        var tasks: [Entry] = []
        var expiries: [Int: @Sendable () -> Bool] = [:]
    }

    private let state = Locked(State())
    /// Whether the system grants background time (it may not, in the background already).
    private let grants: Bool

    /// Creates a provider that grants every task, or (`grants: false`) none.
    public init(grants: Bool = true) {
        self.grants = grants
    }

    /// Every task begun, in order.
    public var tasks: [Entry] {
        state.withLock { $0.tasks }
    }

    /// The tasks begun and not ended yet.
    public var openTasks: [Entry] {
        tasks.filter { $0.endCount == 0 }
    }

    /// Expires every open task, as the system does when background time runs out: each one's
    /// session is told, and the task ended here unless the session ended it already.
    public func expireOpenTasks() {
        let expiring: [(Int, @Sendable () -> Bool)] = state.withLock { state in
            state.tasks.indices.filter { state.tasks[$0].endCount == 0 }.compactMap { index in
                state.expiries[index].map { (index, $0) }
            }
        }
        for (index, expired) in expiring {
            let stillOpen = expired()
            state.withLock { state in
                state.tasks[index].expired = true
                if stillOpen { state.tasks[index].endCount += 1 }
            }
        }
    }

    public func beginTask(named name: String, expired: @escaping @Sendable () -> Bool) async -> BackgroundTaskID? {
        guard grants else { return nil }
        return state.withLock { state in
            state.tasks.append(Entry(name: name, endCount: 0, expired: false))
            state.expiries[state.tasks.count - 1] = expired
            return BackgroundTaskID(rawValue: state.tasks.count - 1)
        }
    }

    public func endTask(_ id: BackgroundTaskID) async {
        state.withLock { $0.tasks[id.rawValue].endCount += 1 }
    }
}
