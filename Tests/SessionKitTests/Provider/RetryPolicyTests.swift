import SessionKit
import Testing

@Suite struct RetryPolicyTests {
    private func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    @Test func eachAttemptDrawsWithinItsExponentialCeiling() throws {
        let policy = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(20))
        var random = SeededRandomNumberGenerator(seed: 7)
        // 0.5 s, 1 s, 2 s, 4 s, 8 s, 16 s, then the 20 s cap.
        let ceilings: [Int64] = [500, 1000, 2000, 4000, 8000, 16000, 20000, 20000, 20000, 20000]
        for (index, ceiling) in ceilings.enumerated() {
            var largest: Int64 = 0
            for _ in 0..<300 {
                let delay = try #require(policy.delay(afterAttempt: index + 1, retryAfter: nil, using: &random))
                #expect(delay >= .zero)
                #expect(milliseconds(delay) <= ceiling, "attempt \(index + 1)")
                largest = max(largest, milliseconds(delay))
            }
            // The ceiling doubles, so the draws must reach beyond the previous attempt's ceiling.
            #expect(largest > ceiling / 2, "attempt \(index + 1) never exceeded half its ceiling")
        }
    }

    @Test func veryLateAttemptsStayAtTheCap() throws {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(300))
        var random = SeededRandomNumberGenerator(seed: 1)
        for attempt in [31, 64, 1000, Int.max] {
            let delay = try #require(policy.delay(afterAttempt: attempt, retryAfter: nil, using: &random))
            #expect(delay <= .seconds(300))
        }
    }

    @Test func maximumAttemptsEndsTheRetries() {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8), maximumAttempts: 3)
        var random = SeededRandomNumberGenerator(seed: 3)
        #expect(policy.delay(afterAttempt: 1, retryAfter: nil, using: &random) != nil)
        #expect(policy.delay(afterAttempt: 2, retryAfter: nil, using: &random) != nil)
        #expect(policy.delay(afterAttempt: 3, retryAfter: nil, using: &random) == nil)
        #expect(policy.delay(afterAttempt: 4, retryAfter: .seconds(1), using: &random) == nil)
    }

    @Test func withoutAMaximumItRetriesForever() {
        let policy = RetryPolicy.serverFirst
        var random = SeededRandomNumberGenerator(seed: 4)
        #expect(policy.maximumAttempts == nil)
        #expect(policy.delay(afterAttempt: 10_000, retryAfter: nil, using: &random) != nil)
    }

    @Test func theShippedPolicies() {
        #expect(RetryPolicy.refresh == RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8), maximumAttempts: 3))
        #expect(RetryPolicy.serverFirst == RetryPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(300), maximumAttempts: nil))
        #expect(RetryPolicy().retryAfterLimit == .seconds(3600))
    }

    @Test func retryAfterIsALowerBound() throws {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60))
        var random = SeededRandomNumberGenerator(seed: 11)
        for attempt in 1...8 {
            let delay = try #require(policy.delay(afterAttempt: attempt, retryAfter: .seconds(30), using: &random))
            #expect(delay >= .seconds(30))
            #expect(delay <= .seconds(60))
        }
        // Early attempts jitter below 30 s, so the provider's wait is taken as it is.
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(30), using: &random) == .seconds(30))
    }

    @Test func aJitteredDelayLongerThanRetryAfterIsKept() throws {
        let policy = RetryPolicy(initialDelay: .seconds(100), maximumDelay: .seconds(100))
        var random = SeededRandomNumberGenerator(seed: 5)
        var aboveRetryAfter = 0
        for _ in 0..<100 {
            let delay = try #require(policy.delay(afterAttempt: 1, retryAfter: .seconds(1), using: &random))
            #expect(delay >= .seconds(1) && delay <= .seconds(100))
            if delay > .seconds(1) { aboveRetryAfter += 1 }
        }
        #expect(aboveRetryAfter > 90)
    }

    @Test func retryAfterIsLimitedByRetryAfterLimit() {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), retryAfterLimit: .seconds(600))
        var random = SeededRandomNumberGenerator(seed: 12)
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(7200), using: &random) == .seconds(600))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(600), using: &random) == .seconds(600))
        #expect(policy.delay(afterAttempt: 1, retryAfter: .seconds(599), using: &random) == .seconds(599))
    }

    @Test func aZeroCeilingMeansNoWait() {
        let policy = RetryPolicy(initialDelay: .zero, maximumDelay: .zero)
        var random = SeededRandomNumberGenerator(seed: 2)
        #expect(policy.delay(afterAttempt: 5, retryAfter: nil, using: &random) == .zero)
    }

    @Test func theSameSeedGivesTheSameDelays() {
        let policy = RetryPolicy.serverFirst
        func delays(seed: UInt64) -> [Duration?] {
            var random = SeededRandomNumberGenerator(seed: seed)
            return (1...20).map { policy.delay(afterAttempt: $0, retryAfter: $0 % 5 == 0 ? .seconds(10) : nil, using: &random) }
        }
        #expect(delays(seed: 42) == delays(seed: 42))
        #expect(delays(seed: 42) != delays(seed: 43))
    }

    @Test func theSeededGeneratorIsSplitMix64() {
        // Reference outputs of SplitMix64 from state 0: identical on every platform.
        var random = SeededRandomNumberGenerator(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(random.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func delaysSpreadOverTheWholeRange() throws {
        let policy = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(8))
        var random = SeededRandomNumberGenerator(seed: 2026)
        var draws: [Int64] = []
        for _ in 0..<1000 {
            draws.append(milliseconds(try #require(policy.delay(afterAttempt: 6, retryAfter: nil, using: &random))))
        }
        let cap: Int64 = 8000
        let lowest = try #require(draws.min())
        let highest = try #require(draws.max())
        let mean = Double(draws.reduce(0, +)) / Double(draws.count)
        #expect(lowest <= cap / 50, "min \(lowest) ms")
        #expect(highest >= cap - cap / 50, "max \(highest) ms")
        #expect(highest <= cap)
        #expect(abs(mean - Double(cap) / 2) < Double(cap) * 0.05, "mean \(mean) ms")
        // Every tenth of the range is hit roughly a tenth of the time.
        var buckets = [Int](repeating: 0, count: 10)
        for draw in draws { buckets[min(Int(draw * 10 / cap), 9)] += 1 }
        #expect(buckets.allSatisfy { (60...140).contains($0) }, "buckets \(buckets)")
    }
}
