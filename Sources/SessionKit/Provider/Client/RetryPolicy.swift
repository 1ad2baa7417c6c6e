/// Capped exponential backoff with full jitter, honouring `Retry-After`.
///
/// Attempt *n* (1-based) waits a uniformly random time in `[0, min(maximumDelay, initialDelay × 2ⁿ⁻¹)]`;
/// when the provider sent `Retry-After`, the wait is at least that (still capped by
/// ``retryAfterLimit``). The random source is injected, so tests and walkthroughs are deterministic.
public struct RetryPolicy: Sendable, Hashable {
    /// The backoff ceiling of the first retry.
    public var initialDelay: Duration
    /// No computed backoff exceeds this.
    public var maximumDelay: Duration
    /// Attempts in all (the first call included) before giving up; `nil` retries until confirmed.
    public var maximumAttempts: Int?
    /// The longest `Retry-After` honoured as given.
    public var retryAfterLimit: Duration

    /// Creates a policy.
    public init(
        initialDelay: Duration = .seconds(1), maximumDelay: Duration = .seconds(60), maximumAttempts: Int? = nil,
        retryAfterLimit: Duration = .seconds(3600)
    ) {
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
        self.maximumAttempts = maximumAttempts
        self.retryAfterLimit = retryAfterLimit
    }

    /// Token refreshes: three attempts, then the callers get the error (the next call tries again).
    public static let refresh = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8), maximumAttempts: 3)
    /// Server-first sign-out and deletion: retried until the provider confirms.
    public static let serverFirst = RetryPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(300), maximumAttempts: nil)

    /// The wait before the next try after `attempt` failed, or `nil` when the policy gives up.
    public func delay(afterAttempt attempt: Int, retryAfter: Duration?, using random: inout some RandomNumberGenerator) -> Duration? {
        if let maximumAttempts, attempt >= maximumAttempts { return nil }
        let ceiling = Self.seconds(initialDelay) * Double(1 << min(max(attempt - 1, 0), 30))
        let capped = min(ceiling, Self.seconds(maximumDelay))
        // Full jitter: millisecond resolution keeps printed delays short and stable.
        let milliseconds = Int64((capped * 1000).rounded(.down))
        var delay = Duration.milliseconds(milliseconds > 0 ? Int64.random(in: 0...milliseconds, using: &random) : 0)
        if let retryAfter {
            delay = max(delay, min(retryAfter, retryAfterLimit))
        }
        return delay
    }

    private static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// A small, fast, seedable generator (SplitMix64) for reproducible jitter in tests and walkthroughs.
package struct SeededRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator; the same seed gives the same sequence on every platform.
    package init(seed: UInt64) {
        self.state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
