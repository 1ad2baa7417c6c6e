import Foundation
import SessionKitTesting
import Testing

/// The order in which main-actor sleepers woke.
@MainActor private final class WakeOrder {
    var values: [Int64] = []
}

@Suite(.timeLimit(.minutes(1))) struct TestClockTests {
    private typealias Instant = TestClock.Instant

    private func at(_ seconds: Int64) -> Instant {
        Instant(offset: .seconds(seconds))
    }

    /// Starts a task that sleeps until `seconds` and then records `label`.
    private func sleeper(_ clock: TestClock, until seconds: Int64, label: String, into log: Collector<String>) -> Task<Void, any Error> {
        Task {
            try await clock.sleep(until: at(seconds))
            log.append(label)
        }
    }

    @Test func aSleeperResumesOnlyWhenTimeReachesItsDeadline() async throws {
        let clock = TestClock()
        let log = Collector<String>()
        let task = sleeper(clock, until: 10, label: "woke", into: log)
        await clock.waitForSleepers(count: 1)
        #expect(clock.nextDeadline == at(10))

        clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)
        #expect(log.values.isEmpty)

        clock.advance(by: .milliseconds(999))
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .milliseconds(1))
        try await task.value
        #expect(log.values == ["woke"])
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == at(10))
    }

    @Test func sleepersResumeStepByStepInDeadlineOrder() async throws {
        let clock = TestClock()
        let log = Collector<String>()
        let tasks = [
            sleeper(clock, until: 30, label: "30", into: log),
            sleeper(clock, until: 10, label: "10", into: log),
            sleeper(clock, until: 20, label: "20", into: log),
        ]
        await clock.waitForSleepers(count: 3)

        #expect(clock.advanceToNextDeadline() == .seconds(10))
        try await tasks[1].value
        #expect(log.values == ["10"])
        #expect(clock.sleeperCount == 2)

        #expect(clock.advanceToNextDeadline() == .seconds(10))
        try await tasks[2].value
        #expect(log.values == ["10", "20"])

        #expect(clock.advanceToNextDeadline() == .seconds(10))
        try await tasks[0].value
        #expect(log.values == ["10", "20", "30"])
        #expect(clock.now == at(30))
        #expect(clock.advanceToNextDeadline() == nil)
        #expect(clock.now == at(30))
    }

    @Test @MainActor func oneAdvanceResumesEveryDueSleeperAndNoOther() async throws {
        let clock = TestClock()
        let woken = WakeOrder()
        // Resumed sleepers continue on the global executor before they hop back here, so the order
        // in which they arrive is not the order they were resumed in: only the set is checked.
        let tasks = ([40, 10, 30, 20, 50] as [Int64]).map { seconds in
            Task { @MainActor in
                try await clock.sleep(until: at(seconds))
                woken.values.append(seconds)
            }
        }
        await clock.waitForSleepers(count: 5)
        clock.advance(by: .seconds(45))
        for task in tasks.prefix(4) { try await task.value }
        #expect(woken.values.sorted() == [10, 20, 30, 40])
        #expect(clock.sleeperCount == 1)
        #expect(clock.nextDeadline == at(50))
        clock.advance(to: at(50))
        try await tasks[4].value
        #expect(woken.values.sorted() == [10, 20, 30, 40, 50])
    }

    @Test func aDeadlineAlreadyReachedReturnsAtOnce() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: at(5))
        try await clock.sleep(until: at(1))
        try await clock.sleep(for: .zero)
        #expect(clock.sleeperCount == 0)
        #expect(clock.now == at(5))
    }

    @Test func sleepForIsMeasuredFromTheCurrentTime() async throws {
        let clock = TestClock()
        clock.advance(by: .seconds(100))
        let task = Task { try await clock.sleep(for: .seconds(3)) }
        await clock.waitForSleepers(count: 1)
        #expect(clock.nextDeadline == at(103))
        #expect(clock.advanceToNextDeadline() == .seconds(3))
        try await task.value
    }

    @Test func timeNeverMovesBackwards() {
        let clock = TestClock()
        clock.advance(to: at(10))
        clock.advance(to: at(4))
        #expect(clock.now == at(10))
        clock.advance(by: .zero)
        #expect(clock.now == at(10))
    }

    // MARK: Waiting for sleepers

    @Test func waitForSleepersReturnsOnceThatManyAreSleeping() async throws {
        let clock = TestClock()
        let reached = Collector<Bool>()
        let watcher = Task {
            await clock.waitForSleepers(count: 3)
            reached.append(true)
            return clock.sleeperCount
        }
        let first = Task { try await clock.sleep(until: at(1)) }
        let second = Task { try await clock.sleep(until: at(2)) }
        // Two sleepers are not enough: the watcher is still waiting while both sleep.
        await clock.waitForSleepers(count: 2)
        #expect(reached.values.isEmpty)
        let third = Task { try await clock.sleep(until: at(3)) }
        #expect(await watcher.value >= 3)
        clock.advance(to: at(3))
        for task in [first, second, third] { try await task.value }
    }

    @Test func waitForSleepersReturnsAtOnceWhenEnoughAreAlreadySleeping() async throws {
        let clock = TestClock()
        await clock.waitForSleepers(count: 0)
        let task = Task { try await clock.sleep(until: at(1)) }
        await clock.waitForSleepers(count: 1)
        await clock.waitForSleepers(count: 1)
        clock.advance(by: .seconds(1))
        try await task.value
    }

    @Test func aCancelledWaitForSleepersReturnsAtOnce() async {
        let clock = TestClock()
        let waiting = Task { await clock.waitForSleepers(count: 10) }
        waiting.cancel()
        await waiting.value
        #expect(clock.sleeperCount == 0)

        // Cancelled once it waits: it returns either way.
        let registered = Task { await clock.waitForSleepers(count: 10) }
        let signal = ChangeSignal()
        signal.watch(clock.changes)
        await signal.wait { clock.sleeperWatchCount == 1 }
        registered.cancel()
        await registered.value
        #expect(clock.sleeperWatchCount == 0)
    }

    @Test func anAlreadyCancelledTaskDoesNotWaitForSleepers() async {
        let clock = TestClock()
        await withTaskGroup(of: Void.self) { group in
            group.cancelAll()
            group.addTask { await clock.waitForSleepers(count: 1) }
        }
        #expect(clock.sleeperCount == 0)
    }

    // MARK: Cancellation

    @Test func aCancelledSleeperThrowsCancellationErrorAndIsRemoved() async throws {
        let clock = TestClock()
        let log = Collector<String>()
        let cancelled = sleeper(clock, until: 10, label: "cancelled", into: log)
        let kept = sleeper(clock, until: 20, label: "kept", into: log)
        await clock.waitForSleepers(count: 2)

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(clock.sleeperCount == 1)
        #expect(clock.nextDeadline == at(20))

        // Advancing past the cancelled deadline neither resumes it twice nor disturbs the other.
        #expect(clock.advanceToNextDeadline() == .seconds(20))
        try await kept.value
        #expect(log.values == ["kept"])
    }

    @Test func aSleeperCancelledBeforeItSleepsThrowsToo() async throws {
        let clock = TestClock()
        await withThrowingTaskGroup(of: Void.self) { group in
            group.cancelAll()
            group.addTask { try await clock.sleep(until: at(10)) }
            await #expect(throws: CancellationError.self) { try await group.next() }
        }
        #expect(clock.sleeperCount == 0)
        #expect(clock.nextDeadline == nil)
    }

    // MARK: Wall clock and description

    @Test func theWallClockMovesWithTheClock() {
        let clock = TestClock()
        let epoch = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(clock.wallClockNow() == epoch)
        clock.advance(by: .seconds(90))
        #expect(clock.wallClockNow() == epoch.addingTimeInterval(90))
        clock.advance(by: .milliseconds(1500))
        #expect(clock.wallClockNow() == epoch.addingTimeInterval(91.5))

        let custom = TestClock(wallClockEpoch: Date(timeIntervalSince1970: 1000))
        custom.advance(by: .seconds(3600))
        #expect(custom.wallClockNow() == Date(timeIntervalSince1970: 4600))
    }

    @Test func theClockHasNoGranularity() {
        #expect(TestClock().minimumResolution == .zero)
        #expect(TestClock().now == at(0))
    }

    @Test func instantArithmeticAndOrder() {
        let start = at(5)
        #expect(start.advanced(by: .seconds(3)) == at(8))
        #expect(start.duration(to: at(8)) == .seconds(3))
        #expect(at(8).duration(to: start) == .seconds(-3))
        #expect(start < at(6))
        #expect(!(at(6) < start))
    }

    @Test(arguments: [
        (Duration.zero, "+0s"), (.seconds(90), "+90s"), (.milliseconds(1500), "+1.5s"), (.milliseconds(1), "+0.001s"),
        (.seconds(86400 * 2), "+172800s"),
    ])
    func instantDescription(_ offset: Duration, _ text: String) {
        #expect(Instant(offset: offset).description == text)
        #expect("\(Instant(offset: offset))" == text)
    }

    @Test func aNegativeInstantIsDescribedWithOneSign() {
        #expect(Instant(offset: .seconds(-5)).description == "-5s")
    }
}
