import Foundation
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKit

/// The session's one owner of tasks: children run, can be cancelled one by one, and all end at shutdown.
@Suite("Task owner")
struct TaskOwnerTests {
    /// A gate children wait on until a test opens it; counts who got through.
    final class Gate: Sendable {
        let completion = Completion()
        let passed = Atomic(0)
        let cancelled = Atomic(0)

        func pass() async {
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

    @Test("cancelling one child ends only that child")
    func cancelOne() async throws {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        let first = owner.spawn(cancellable: true) { await gate.pass() }
        owner.spawn(cancellable: true) { await gate.pass() }
        owner.cancel(try #require(first))
        await signal.wait { owner.liveChildren == 1 }
        #expect(gate.cancelled.load(ordering: .relaxed) == 1)
        gate.completion.complete()
        await signal.wait { owner.liveChildren == 0 }
        #expect(gate.passed.load(ordering: .relaxed) == 1)
    }

    @Test("shutdown cancels every child, returns once all ended, and refuses new work")
    func shutdownEndsEverything() async {
        let owner = TaskOwner()
        let gate = Gate()
        for _ in 0..<3 { owner.spawn { await gate.pass() } }
        await owner.shutdown()
        #expect(owner.liveChildren == 0)
        #expect(gate.cancelled.load(ordering: .relaxed) == 3)
        let ran = Atomic(false)
        #expect(owner.spawn { ran.store(true, ordering: .relaxed) } == nil)
        #expect(owner.liveChildren == 0)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
    }

    @Test("a child started here runs on the calling thread until it suspends, and one that ends first is never handed over")
    func startingHereRunsOnTheCallingThread() async throws {
        let owner = TaskOwner()
        let ran = Atomic(false)
        let caller = CurrentThread.id
        let thread = Atomic<UInt>(0)
        owner.spawn(startingHere: true) {
            thread.store(CurrentThread.id, ordering: .relaxed)
            ran.store(true, ordering: .relaxed)
        }
        // Nothing was handed to another thread: the work is done when `spawn` returns.
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
        #expect(thread.load(ordering: .relaxed) == caller)
        #expect(owner.liveChildren == 0)
        // Work that suspends is joined by the group like any other child.
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        owner.spawn(startingHere: true) { await gate.pass() }
        #expect(owner.liveChildren == 1)
        gate.completion.complete()
        await signal.wait { owner.liveChildren == 0 }
        #expect(gate.passed.load(ordering: .relaxed) == 1)
    }

    @Test("a child started here is cancelled on its own, and shutdown cancels it and waits for its end")
    func startingHereIsOwned() async throws {
        let owner = TaskOwner()
        let signal = ChangeSignal()
        signal.watch(owner.changes)
        let gate = Gate()
        let first = try #require(owner.spawn(cancellable: true, startingHere: true) { await gate.pass() })
        owner.spawn(startingHere: true) { await gate.pass() }
        owner.cancel(first)
        await signal.wait { owner.liveChildren == 1 }
        #expect(gate.cancelled.load(ordering: .relaxed) == 1)
        await owner.shutdown()
        #expect(owner.liveChildren == 0)
        #expect(gate.cancelled.load(ordering: .relaxed) == 2)
        #expect(owner.spawn(startingHere: true) {} == nil)
    }

    @Test("an owner that was never used starts nothing and shuts down at once")
    func idleShutdown() async {
        let owner = TaskOwner()
        await owner.shutdown()
        #expect(owner.isShutDown)
        #expect(owner.liveChildren == 0)
    }
}

/// The calling thread, to tell where work ran.
enum CurrentThread {
    static var id: UInt {
        #if canImport(Glibc)
            UInt(pthread_self())
        #else
            UInt(bitPattern: pthread_self())
        #endif
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
