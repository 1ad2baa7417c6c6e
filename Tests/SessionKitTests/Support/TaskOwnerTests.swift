import Foundation
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKit
@testable import SessionKitCore

/// The session's one owner of tasks: children run, can be cancelled one by one, and all end at shutdown.
@Suite("Task owner")
struct TaskOwnerTests {
    /// A gate children wait on until a test opens it; counts who got through.
    final class Gate: Sendable {
        let completion = Completion()
        let entered = Atomic(0)
        let passed = Atomic(0)
        let cancelled = Atomic(0)
        /// Notified whenever a child reaches the gate.
        let changes = SessionChangeFeed()

        func pass() async {
            entered.add(1, ordering: .relaxed)
            changes.notify()
            await completion.wait()
            if Task.isCancelled { cancelled.add(1, ordering: .relaxed) } else { passed.add(1, ordering: .relaxed) }
        }
    }

    @Test("children run, are counted while alive, and none is left once they end")
    func childrenAreCounted() async {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        for _ in 0..<5 { owner.spawn { await gate.pass() } }
        #expect(owner.liveChildren == 5)
        gate.completion.complete()
        await signal.wait { owner.liveChildren == 0 }
        #expect(gate.passed.load(ordering: .relaxed) == 5)
    }

    @Test("a cancel token ends only the child racing it")
    func cancelOne() async throws {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        let first = CancelToken()
        owner.spawn(cancelledBy: first) { await gate.pass() }
        owner.spawn(cancelledBy: CancelToken()) { await gate.pass() }
        first.cancel()
        await signal.wait { owner.liveChildren == 1 }
        #expect(gate.cancelled.load(ordering: .relaxed) == 1)
        gate.completion.complete()
        await signal.wait { owner.liveChildren == 0 }
        #expect(gate.passed.load(ordering: .relaxed) == 1)
    }

    @Test("work whose token was cancelled before it started still runs, cancelled from its first line")
    func cancelledBeforeStart() async {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let token = CancelToken()
        token.cancel()
        let sawCancellation = Atomic(false)
        owner.spawn(cancelledBy: token) { sawCancellation.store(Task.isCancelled, ordering: .relaxed) }
        await signal.wait { owner.liveChildren == 0 }
        let cancelledFromTheStart = sawCancellation.load(ordering: .relaxed)
        #expect(cancelledFromTheStart)
    }

    @Test("one token covers every run started with it, and a run that ended is untouched")
    func oneTokenManyRuns() async {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let token = CancelToken()
        let ended = Gate()
        ended.completion.complete()
        owner.spawn(cancelledBy: token) { await ended.pass() }
        await signal.wait { owner.liveChildren == 0 }
        let gate = Gate()
        for _ in 0..<3 { owner.spawn(cancelledBy: token) { await gate.pass() } }
        await signal.wait { owner.liveChildren == 3 }
        token.cancel()
        await signal.wait { owner.liveChildren == 0 }
        #expect(ended.passed.load(ordering: .relaxed) == 1)
        #expect(gate.cancelled.load(ordering: .relaxed) == 3)
    }

    @Test("shutdown cancels every child, returns once all ended, and refuses new work")
    func shutdownEndsEverything() async {
        let owner = TaskOwner()
        let gate = Gate()
        for _ in 0..<3 { owner.spawn { await gate.pass() } }
        owner.spawn(cancelledBy: CancelToken()) { await gate.pass() }
        await owner.shutdown()
        #expect(owner.liveChildren == 0)
        #expect(gate.cancelled.load(ordering: .relaxed) == 4)
        let ran = Atomic(false)
        #expect(!owner.spawn { ran.store(true, ordering: .relaxed) })
        #expect(owner.liveChildren == 0)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    @Test("a hosted owner runs nothing until run(), then runs its children in run()'s task")
    func hostedRunsInTheHostsTask() async {
        let owner = TaskOwner(hosted: true)
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        gate.completion.complete()
        let ran = Atomic(0)
        for _ in 0..<3 {
            owner.spawn {
                await gate.pass()
                ran.add(1, ordering: .relaxed)
            }
        }
        // Handed over, waiting for the host.
        #expect(owner.liveChildren == 3)
        #expect(ran.load(ordering: .relaxed) == 0)
        let host = Task { await owner.run() }
        await signal.wait { owner.liveChildren == 0 }
        #expect(ran.load(ordering: .relaxed) == 3)
        // Work spawned while run() waits starts at once.
        owner.spawn { ran.add(1, ordering: .relaxed) }
        await signal.wait { owner.liveChildren == 0 }
        #expect(ran.load(ordering: .relaxed) == 4)
        await owner.shutdown()
        await host.value
        #expect(owner.isShutDown)
    }

    @Test("cancelling the task that runs a hosted owner shuts it down and cancels its children")
    func cancellingTheHostShutsDown() async {
        let owner = TaskOwner(hosted: true)
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        signal.watch(gate.changes)
        owner.spawn { await gate.pass() }
        let host = Task { await owner.run() }
        await signal.wait { gate.entered.load(ordering: .relaxed) == 1 }
        host.cancel()
        await host.value
        #expect(owner.isShutDown)
        #expect(owner.liveChildren == 0)
        #expect(gate.cancelled.load(ordering: .relaxed) == 1)
    }

    @Test("a hosted owner shut down before run() runs the work handed to it, cancelled, so it can answer")
    func hostedShutdownWithoutRun() async {
        let owner = TaskOwner(hosted: true)
        let ranCancelled = Atomic(0)
        for _ in 0..<2 {
            owner.spawn { if Task.isCancelled { ranCancelled.add(1, ordering: .relaxed) } }
        }
        #expect(owner.liveChildren == 2)
        await owner.shutdown()
        #expect(owner.liveChildren == 0)
        #expect(ranCancelled.load(ordering: .relaxed) == 2)
        // A late run() finds nothing to do and returns.
        await owner.run()
        #expect(!owner.spawn {})
    }

    @Test("run() on an owner with a task of its own waits until it is shut down")
    func runOnAnOwnedOwnerWaits() async {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        owner.spawn { await gate.pass() }
        let waiter = Task { await owner.run() }
        await owner.shutdown()
        await waiter.value
        #expect(owner.liveChildren == 0)
        #expect(gate.cancelled.load(ordering: .relaxed) == 1)
    }

    @Test("an owner that was never used starts nothing and shuts down at once")
    func idleShutdown() async {
        let owner = TaskOwner()
        await owner.shutdown()
        #expect(owner.isShutDown)
        #expect(owner.liveChildren == 0)
    }
}

/// One piece of work shared by every caller: the work is the owner's, not the first caller's.
@Suite("Single flight")
struct SingleFlightTests {
    struct Failure: Error, Equatable {
        var why: String
    }

    /// Work that waits for a test to let it finish; counts how often it ran and was cancelled.
    final class Work: Sendable {
        let release = Completion()
        let started = Atomic(0)
        let cancelled = Atomic(0)

        func run(_ value: Int) async -> Result<Int, Failure> {
            started.add(1, ordering: .relaxed)
            await release.wait()
            if Task.isCancelled {
                cancelled.add(1, ordering: .relaxed)
                return .failure(Failure(why: "work cancelled"))
            }
            return .success(value)
        }
    }

    private static let cancelled = Failure(why: "caller cancelled")

    @Test("any number of callers share one run of the work")
    func oneRunForManyCallers() async {
        let owner = TaskOwner()
        let flight = SingleFlight<Int, Failure>(owner: owner)
        let signal = ChangeSignal()
        signal.watch(flight.changes)
        let work = Work()
        let callers = (0..<50).map { index in
            Task { await flight.run(cancelled: Self.cancelled) { await work.run(index) } }
        }
        await signal.wait { flight.waitingCallerCount == 50 }
        work.release.complete()
        var results: Set<Int> = []
        for caller in callers { if case .success(let value) = await caller.value { results.insert(value) } }
        #expect(results.count == 1)
        #expect(flight.flightsStarted == 1)
        #expect(work.started.load(ordering: .relaxed) == 1)
    }

    @Test("the first caller's cancellation leaves the others their answer; the work goes on")
    func firstCallerCancelled() async {
        let owner = TaskOwner()
        let flight = SingleFlight<Int, Failure>(owner: owner)
        let signal = ChangeSignal()
        signal.watch(flight.changes)
        let work = Work()
        let first = Task { await flight.run(cancelled: Self.cancelled) { await work.run(1) } }
        await signal.wait { flight.waitingCallerCount == 1 }
        let second = Task { await flight.run(cancelled: Self.cancelled) { await work.run(2) } }
        await signal.wait { flight.waitingCallerCount == 2 }
        first.cancel()
        #expect(await first.value == .failure(Self.cancelled))
        await signal.wait { flight.waitingCallerCount == 1 }
        work.release.complete()
        #expect(await second.value == .success(1))
        #expect(work.cancelled.load(ordering: .relaxed) == 0)
    }

    @Test("the work is cancelled when its last caller leaves, and the next caller starts anew")
    func lastCallerLeaves() async {
        let owner = TaskOwner()
        let flight = SingleFlight<Int, Failure>(owner: owner)
        let signal = ChangeSignal()
        signal.watch(flight.changes)
        signal.watch(owner.changes)
        let work = Work()
        let only = Task { await flight.run(cancelled: Self.cancelled) { await work.run(1) } }
        await signal.wait { flight.waitingCallerCount == 1 }
        only.cancel()
        #expect(await only.value == .failure(Self.cancelled))
        await signal.wait { owner.liveChildren == 0 }
        #expect(work.cancelled.load(ordering: .relaxed) == 1)

        let fresh = Work()
        fresh.release.complete()
        #expect(await flight.run(cancelled: Self.cancelled) { await fresh.run(7) } == .success(7))
        #expect(flight.flightsStarted == 2)
    }

    @Test("a shut-down owner ends the work and answers its callers")
    func ownerShutdown() async {
        let owner = TaskOwner()
        let flight = SingleFlight<Int, Failure>(owner: owner)
        let signal = ChangeSignal()
        signal.watch(flight.changes)
        let work = Work()
        let caller = Task { await flight.run(cancelled: Self.cancelled) { await work.run(1) } }
        await signal.wait { flight.waitingCallerCount == 1 }
        await owner.shutdown()
        #expect(await caller.value == .failure(Failure(why: "work cancelled")))
        #expect(await flight.run(cancelled: Self.cancelled) { .success(3) } == .failure(Self.cancelled))
    }
}
