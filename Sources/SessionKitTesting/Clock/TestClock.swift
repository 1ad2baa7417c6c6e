public import Foundation
import SessionKit
package import SessionKitCore
import Synchronization

/// A clock whose time moves only when a test says so.
///
/// Code under test sleeps on it as on any `Clock`. A test first waits until that code is really
/// sleeping (``waitForSleepers(count:)``), then moves time (``advance(by:)``,
/// ``advanceToNextDeadline()``); sleepers whose deadline has come are resumed in deadline order.
/// No real time passes, so scenarios that span days run in microseconds and identically every time.
///
/// The clock also keeps a simulated wall clock, ``wallClockNow()``, that moves with it, for the
/// token-time judgements (`exp`, `iat`, `expires_in`) that need a calendar date.
public final class TestClock: Clock, Sendable {
    /// A point in simulated time: the offset from the clock's start.
    public struct Instant: InstantProtocol, Sendable, Hashable, Comparable, CustomStringConvertible {
        /// Simulated time elapsed since the clock started.
        public var offset: Duration

        /// Creates an instant at an offset from the clock's start.
        public init(offset: Duration) {
            self.offset = offset
        }

        /// The instant `duration` later.
        public func advanced(by duration: Duration) -> Instant {
            Instant(offset: offset + duration)
        }

        /// The simulated time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            other.offset - offset
        }

        /// Earlier instants order first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.offset < rhs.offset
        }

        /// `+Ns` (or `-Ns` before the start) with whole seconds, or fractional seconds when needed.
        public var description: String {
            let (seconds, attoseconds) = offset.components
            let sign = offset < .zero ? "" : "+"
            if attoseconds == 0 { return "\(sign)\(seconds)s" }
            return "\(sign)\(Double(seconds) + Double(attoseconds) / 1e18)s"
        }
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct SleeperWatch {
        var id: UInt64
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watches: [SleeperWatch] = []
        /// Ids whose cancellation arrived before their sleeper registered.
        var cancelledEarly: Set<UInt64> = []
    }

    private let state = Locked(State())
    private let wallClockEpoch: Date
    /// The simulated wall clock (`timeIntervalSinceReferenceDate`, as bits), written under the
    /// lock whenever time moves and read without it: a session reads it on every call, so a read
    /// costs an atomic load rather than the lock and a `Duration` conversion.
    private let wallClockBits: Atomic<UInt64>

    /// Creates a clock at offset zero whose wall clock starts at `wallClockEpoch`.
    ///
    /// The default epoch, 2026-01-01T00:00:00Z, keeps simulated dates identical from run to run.
    public init(wallClockEpoch: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        self.wallClockEpoch = wallClockEpoch
        self.wallClockBits = Atomic(wallClockEpoch.timeIntervalSinceReferenceDate.bitPattern)
    }

    /// The current simulated instant.
    public var now: Instant {
        state.withLock { $0.now }
    }

    /// The test clock has no granularity.
    public var minimumResolution: Duration { .zero }

    /// The simulated wall-clock date: the epoch plus the time advanced so far.
    public func wallClockNow() -> Date {
        Date(timeIntervalSinceReferenceDate: Double(bitPattern: wallClockBits.load(ordering: .acquiring)))
    }

    /// The wall-clock date at `instant`.
    private func wallClockDate(at instant: Instant) -> Date {
        let offset = instant.offset.components
        return wallClockEpoch.addingTimeInterval(Double(offset.seconds) + Double(offset.attoseconds) / 1e18)
    }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int {
        state.withLock { $0.sleepers.count }
    }

    /// The earliest deadline among current sleepers, if any.
    public var nextDeadline: Instant? {
        state.withLock { $0.sleepers.map(\.deadline).min() }
    }

    /// How many ``waitForSleepers(count:)`` calls are suspended, waiting for sleepers.
    package var sleeperWatchCount: Int {
        state.withLock { $0.watches.count }
    }

    /// Notified after every change of the sleepers (and of the tasks waiting for them), for
    /// ``SimulatedSessionEnvironment``'s waits.
    package let changes = SessionChangeFeed()

    /// Suspends until `deadline` has been reached by advancing the clock, or throws
    /// `CancellationError` when the calling task is cancelled first.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLock { state in
                    if state.cancelledEarly.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    let ready = Self.takeSatisfiedWatches(&state)
                    for watch in ready { watch.continuation.resume() }
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
                changes.notify()
            }
        } onCancel: {
            let sleeper: Sleeper? = state.withLock { state in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) {
                    return state.sleepers.remove(at: index)
                }
                state.cancelledEarly.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
            changes.notify()
        }
    }

    /// Suspends until at least `count` tasks are sleeping on this clock.
    ///
    /// This is how a test knows the code under test has reached its wait (a timeout, a backoff, a
    /// refresh lead time) before it moves time.
    public func waitForSleepers(count: Int = 1) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { state in
                    if state.sleepers.count >= count || state.cancelledEarly.remove(id) != nil { return true }
                    state.watches.append(SleeperWatch(id: id, count: count, continuation: continuation))
                    return false
                }
                if satisfied { continuation.resume() } else { changes.notify() }
            }
        } onCancel: {
            // A cancelled wait returns at once, so a test can race it against other work.
            let watch: SleeperWatch? = state.withLock { state in
                if let index = state.watches.firstIndex(where: { $0.id == id }) {
                    return state.watches.remove(at: index)
                }
                state.cancelledEarly.insert(id)
                return nil
            }
            watch?.continuation.resume()
        }
    }

    /// Moves time forward by `duration`, resuming every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "time never moves backwards")
        advance(to: now.advanced(by: duration))
    }

    /// Moves time to `instant` (never backwards), resuming every sleeper whose deadline has come,
    /// earliest deadline first.
    public func advance(to instant: Instant) {
        let due: [Sleeper] = state.withLock { state in
            if instant > state.now {
                state.now = instant
                wallClockBits.store(wallClockDate(at: instant).timeIntervalSinceReferenceDate.bitPattern, ordering: .releasing)
            }
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        changes.notify()
    }

    /// Moves time to the earliest sleeper's deadline and resumes the sleepers due then.
    ///
    /// Returns the time advanced, or `nil` when nothing was sleeping.
    @discardableResult
    public func advanceToNextDeadline() -> Duration? {
        guard let next = nextDeadline else { return nil }
        let before = now
        advance(to: next)
        return before.duration(to: max(next, before))
    }

    private static func takeSatisfiedWatches(_ state: inout State) -> [SleeperWatch] {
        let count = state.sleepers.count
        let ready = state.watches.filter { $0.count <= count }
        state.watches.removeAll { $0.count <= count }
        return ready
    }
}
