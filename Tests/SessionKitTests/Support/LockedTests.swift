import Testing

@testable import SessionKit

@Suite struct LockedTests {
    final class Counter: Sendable {
        let value = Locked(0)
    }

    /// Many threads contend for one lock. Every increment must survive (mutual exclusion), and under
    /// the thread sanitizer the run must report no race: without the acquire/release annotations,
    /// `Mutex`'s kernel hand-over is invisible to it and this exact test is reported.
    @Test func contendedIncrementsAreExclusiveAndVisibleToTheSanitizer() async {
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<2_000 { counter.value.withLock { $0 += 1 } }
                }
            }
        }
        #expect(counter.value.withLock { $0 } == 16_000)
    }

    @Test func throwsTheBodysErrorAndReleasesTheLock() {
        struct Failure: Error, Equatable {}
        let value = Locked([1, 2])
        #expect(throws: Failure()) {
            try value.withLock { (array: inout [Int]) throws(Failure) in
                array.append(3)
                throw Failure()
            }
        }
        // The change before the throw stays, and the lock is free again.
        #expect(value.withLock { $0 } == [1, 2, 3])
    }
}
