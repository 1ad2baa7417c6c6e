#if canImport(UIKit) && !os(watchOS)
    import UIKit

    /// iOS's protected-data state, from `UIApplication`: glue only, every decision is the session's.
    public struct SystemProtectedData: ProtectedDataAvailability {
        /// Reads `UIApplication.shared`.
        public init() {}

        public func isAvailable() async -> Bool {
            await MainActor.run { UIApplication.shared.isProtectedDataAvailable }
        }

        public func waitUntilAvailable() async {
            let notifications = NotificationCenter.default.notifications(
                named: UIApplication.protectedDataDidBecomeAvailableNotification)
            // Subscribed before the check, so an unlock in between is not missed.
            if await isAvailable() { return }
            for await _ in notifications {
                if await isAvailable() { return }
            }
        }
    }

    /// iOS's background tasks, from `UIApplication`: glue only; the session decides when a task
    /// begins and ends, and each one is ended exactly once.
    public struct SystemBackgroundTasks: BackgroundTaskProvider {
        /// Uses `UIApplication.shared`.
        public init() {}

        public func beginTask(named name: String, expired: @escaping @Sendable () -> Bool) async -> BackgroundTaskID? {
            await MainActor.run {
                let slot = BackgroundTaskSlot()
                let task = UIApplication.shared.beginBackgroundTask(withName: name) {
                    // Called on the main thread by the system; the task must end before it returns.
                    if expired(), let task = slot.task { UIApplication.shared.endBackgroundTask(task) }
                }
                slot.task = task
                return task == .invalid ? nil : BackgroundTaskID(rawValue: task.rawValue)
            }
        }

        public func endTask(_ id: BackgroundTaskID) async {
            await MainActor.run { UIApplication.shared.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: id.rawValue)) }
        }
    }

    /// The identifier an expiration handler needs, known only once `beginBackgroundTask` returned.
    /// Written and read on the main actor only.
    @MainActor private final class BackgroundTaskSlot {
        var task: UIBackgroundTaskIdentifier?
    }
#endif
