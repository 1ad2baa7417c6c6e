import Synchronization

/// Where the time of one library refresh went, accumulated by the timing wrappers around the
/// session's transport and store.
final class PhaseClock: Sendable {
    /// A part of a refresh that is timed on its own; the rest is whatever the total leaves.
    enum Phase: String, CaseIterable, Sendable {
        case http = "http"
        case leaseAcquire = "lease_acquire"
        case leaseRelease = "lease_release"
        case load = "store_load"
        case save = "store_save"
    }

    private let clock = ContinuousClock()
    private let totals = Mutex<[Phase: Duration]>([:])
    private let counts = Mutex<[Phase: Int]>([:])

    var now: ContinuousClock.Instant { clock.now }

    func add(_ phase: Phase, since start: ContinuousClock.Instant) {
        let elapsed = clock.now - start
        totals.withLock { $0[phase, default: .zero] += elapsed }
        counts.withLock { $0[phase, default: 0] += 1 }
    }

    /// The time and the number of calls per phase since the last call, and starts over.
    func take() -> (totals: [Phase: Duration], counts: [Phase: Int]) {
        (totals.withLock { value in defer { value = [:] }; return value }, counts.withLock { value in defer { value = [:] }; return value })
    }
}
