import Foundation
import SessionKit
import Synchronization

/// A wall clock a test sets by hand. It counts how often it was read, so a test can wait until
/// code under test has reached the point where it reads the time.
final class SettableWallClock: Sendable {
    private struct State {
        var now: Date
        var reads = 0
        var readWatches: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Locked<State>

    init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Locked(State(now: start))
    }

    /// The current time; counts as one read.
    func now() -> Date {
        let (date, ready) = state.withLock { state in
            state.reads += 1
            let reads = state.reads
            let ready = state.readWatches.filter { $0.count <= reads }.map(\.continuation)
            state.readWatches.removeAll { $0.count <= reads }
            return (state.now, ready)
        }
        for continuation in ready { continuation.resume() }
        return date
    }

    /// Moves the clock by `seconds` (either way).
    func advance(by seconds: TimeInterval) {
        state.withLock { $0.now.addTimeInterval(seconds) }
    }

    /// The current time without counting a read.
    var current: Date { state.withLock { $0.now } }

    /// How many times ``now()`` was called.
    var reads: Int { state.withLock { $0.reads } }

    /// Returns once ``now()`` has been called at least `count` times in all.
    func waitForReads(count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state in
                if state.reads >= count { return true }
                state.readWatches.append((count, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }
}
