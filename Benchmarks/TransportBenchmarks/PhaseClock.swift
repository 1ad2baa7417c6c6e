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

    /// Time and number of calls per phase since the last ``take()``.
    struct Tally: Sendable {
        var totals: [Phase: Duration] = [:]
        var counts: [Phase: Int] = [:]
    }

    private let clock = ContinuousClock()
    private let tally = Mutex(Tally())

    var now: ContinuousClock.Instant { clock.now }

    func add(_ phase: Phase, since start: ContinuousClock.Instant) {
        let elapsed = clock.now - start
        tally.withLock { tally in
            tally.totals[phase, default: .zero] += elapsed
            tally.counts[phase, default: 0] += 1
        }
    }

    /// The tally since the last call; starts a new one.
    func take() -> Tally {
        tally.withLock { tally in
            defer { tally = Tally() }
            return tally
        }
    }
}
