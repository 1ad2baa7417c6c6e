import SessionKitCore

/// Whether the device's protected data (the Keychain's `AfterFirstUnlock` items) can be read now.
///
/// Before the first unlock after a reboot, and while iOS prewarms an app, a Keychain read fails
/// with `errSecInteractionNotAllowed`: the session is there, it just cannot be read yet. With a
/// source, ``Session/restore()`` waits for protected data instead of reporting "signed out"; the
/// app is told through ``SessionEvent/credentialStoreLocked``. `SystemProtectedData` is the iOS
/// source; a test passes a scripted one.
public protocol ProtectedDataAvailability: Sendable {
    /// Whether protected data can be read now.
    func isAvailable() async -> Bool
    /// Returns once protected data can be read, or when the calling task is cancelled.
    func waitUntilAvailable() async
}

/// Asks the system to let work finish when the app moves to the background (iOS:
/// `UIApplication.beginBackgroundTask(withName:expirationHandler:)`).
///
/// A session runs each refresh and each revocation or disconnect attempt inside one such task, so
/// a rotated refresh token is made durable before the app is suspended. Every task begun is ended
/// exactly once: by the session when the work ends, on every path, or, when the system expires
/// it first, by the provider.
public protocol BackgroundTaskProvider: Sendable {
    /// Begins a task named `name`, or returns `nil` when the system grants no background time.
    ///
    /// When the system is about to end the task early, the provider calls `expired`; if it returns
    /// `true` the task is still the provider's to end, and it ends it there and then. Once the
    /// session ended the task, `expired` returns `false`.
    func beginTask(named name: String, expired: @escaping @Sendable () -> Bool) async -> BackgroundTaskID?
    /// Ends a task ``beginTask(named:expired:)`` began.
    func endTask(_ id: BackgroundTaskID) async
}

/// Identifies one background task a ``BackgroundTaskProvider`` began.
public struct BackgroundTaskID: Hashable, Sendable {
    /// The system's identifier.
    public let rawValue: Int

    /// Wraps the system's identifier.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }
}

extension BackgroundTaskProvider {
    /// Runs `work` inside a background task, ended exactly once: after `work` ends (however it
    /// ends, cancelled included), unless the system expired it first.
    func withBackgroundTask<Value: Sendable>(named name: String, _ work: () async -> Value) async -> Value {
        let open = Locked(true)
        // Whoever closes it first ends it: the expiry (through the provider) or the session.
        let close: @Sendable () -> Bool = {
            open.withLock { open in
                defer { open = false }
                return open
            }
        }
        let id = await beginTask(named: name, expired: close)
        let value = await work()
        if let id, close() { await endTask(id) }
        return value
    }
}
