import Foundation
import SessionKitJOSE
import SessionKitTesting
import Testing

@testable import SessionKit

/// Every task a session starts is a child of its one owner, and `shutdown()` ends them all.
@Suite("Session shutdown")
struct SessionShutdownTests {
    @Test("shutdown answers every waiting caller, ends every stream and task, and refuses later calls")
    func shutdownEndsEverything() async throws {
        let h = try SimulatedSessionEnvironment()
        try await h.signIn()
        h.clock.advance(by: .seconds(3540))
        h.provider.script(.slow(.seconds(5)), on: .token)
        let session = h.session
        let events = session.events()
        let collector = Task { () -> [SessionEvent] in
            var seen: [SessionEvent] = []
            for await event in events { seen.append(event) }
            return seen
        }
        let callers = (0..<3).map { _ in
            Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        }
        await h.waitForWaitingCallers(3)
        #expect(session.liveTaskCount >= 1)

        await session.shutdown()
        for caller in callers { #expect(await caller.value.error == .shutDown) }
        #expect(session.liveTaskCount == 0)
        #expect(h.clock.sleeperCount == 0)
        #expect(session.stage == .signedOut)
        let seen = await collector.value
        #expect(
            seen.last == .transition(SessionTransition(from: .refreshing, to: .signedOut, reason: .shutDown, date: h.clock.wallClockNow())))
        await #expect(throws: SessionError.shutDown) { try await session.validAccessToken() }
        await #expect(throws: SessionError.shutDown) { try await session.signIn() }
        // Nothing stored was touched: a new session restores the stored one.
        #expect(h.store.record.session != nil)
        let relaunched = await h.relaunch()
        #expect(try await relaunched.restore() != .signedOut)
        await relaunched.shutdown()
    }

    @Test("a handoff's presentation and timeout, and a sign-out's backoff, are children that shutdown ends")
    func presentationAndTimersAreChildren() async throws {
        let h = try SimulatedSessionEnvironment()
        h.presenter.enqueue(.neverAnswer)
        let session = h.session
        let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn() } }
        await h.waitUntil("handoff") { session.stage == .handoff }
        await h.clock.waitForSleepers(count: 1)
        #expect(session.liveTaskCount == 2)
        await session.shutdown()
        #expect(await signIn.value.error == .shutDown)
        #expect(session.liveTaskCount == 0)
        #expect(h.clock.sleeperCount == 0)

        let second = try SimulatedSessionEnvironment()
        try await second.signIn()
        second.provider.script(.serverError(status: 503), on: .revocation, times: 100)
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await second.session.signOut() } }
        await second.clock.waitForSleepers(count: 1)
        #expect(second.session.stage == .revoking)
        #expect(second.session.liveTaskCount == 1)
        await second.session.shutdown()
        #expect(await signOut.value.error == .shutDown)
        #expect(second.session.liveTaskCount == 0)
        // The journal keeps the intent for the next launch.
        #expect(second.store.record.pendingOperation == .signOut)
    }

    @Test("sign-in, refresh and sign-out cycles leave no task behind and do not grow memory")
    func cyclesLeaveNothingBehind() async throws {
        let cycles = ProcessInfo.processInfo.environment["SESSIONKIT_SOAK_CYCLES"].flatMap(Int.init) ?? 300
        var baseline = 0
        for cycle in 0..<cycles {
            // A fresh app each cycle: the simulated provider and the harness keep every request
            // they saw, so only a new one per cycle leaves the session's own memory to measure.
            try await {
                let h = try SimulatedSessionEnvironment()
                let session = h.session
                try await h.signIn()
                _ = try await session.refresh()
                try await session.signOut()
                await h.waitUntil("no task left") { session.liveTaskCount == 0 }
                #expect(h.clock.sleeperCount == 0)
            }()
            if cycle == min(50, cycles - 1) { baseline = residentBytes() }
        }
        let growth = residentBytes() - baseline
        // A session, task or continuation kept per cycle (a session holds a provider profile, a
        // verifier, a store and a lock: kilobytes) would show as megabytes by now.
        #expect(growth < 16 << 20, "resident memory grew by \(growth) bytes over \(cycles) cycles")
        print("soak: \(cycles) cycles, no task left in any, resident growth \(growth / 1024) KiB after cycle 50")
    }

    /// The process's resident set size, from /proc (0 where there is none).
    private func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * 4096
    }
}
