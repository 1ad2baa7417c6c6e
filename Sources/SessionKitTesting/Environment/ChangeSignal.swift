import SessionKit
package import SessionKitCore

/// Wakes tests that wait on a condition whenever something they may be waiting for changed: the
/// session's machine, the clock's sleepers, a request at the simulated provider, a presentation,
/// the store, a recorded event.
///
/// ``wait(until:)`` checks the condition, and suspends until the next change when it does not hold
/// yet: no polling, no yields, no real time.
public final class ChangeSignal: Sendable {
    private struct State {
        var version: UInt64 = 0
        var sleepers: [CheckedContinuation<Void, Never>] = []
        var feeds: [SessionChangeFeed] = []
        var armed = false
    }

    private let state = Locked(State())

    /// Creates a signal that nothing notifies yet.
    public init() {}

    /// Wakes every waiter to check its condition again.
    public func notify() {
        let sleepers = state.withLock { state in
            state.version &+= 1
            defer { state.sleepers = [] }
            return state.sleepers
        }
        for sleeper in sleepers { sleeper.resume() }
    }

    /// Suspends until `condition` holds, checking it now and after every change.
    ///
    /// The condition runs on the caller's actor (the wait is `nonisolated(nonsending)`), so a
    /// main-actor test can read main-actor state in it.
    public nonisolated(nonsending) func wait(until condition: () async -> Bool) async {
        let feeds = state.withLock { state in
            state.armed = true
            return state.feeds
        }
        for feed in feeds { feed.arm() }
        while true {
            let version = state.withLock { $0.version }
            if await condition() { return }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let changed = state.withLock { state in
                    if state.version != version { return true }
                    state.sleepers.append(continuation)
                    return false
                }
                if changed { continuation.resume() }
            }
        }
    }

    package func watch(_ feed: SessionChangeFeed) {
        feed.add { [weak self] in self?.notify() }
        if state.withLock({ state in
            state.feeds.append(feed)
            return state.armed
        }) {
            feed.arm()
        }
    }
}
