import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Where apps live: a launch before the first unlock, and work the system may suspend.
@Suite("Session app lifecycle")
struct SessionLifecycleTests {
    private static func isLockedEvent(_ event: SessionEvent) -> Bool {
        if case .credentialStoreLocked = event { return true }
        return false
    }

    // MARK: Protected data

    @Test("a launch before the first unlock waits for protected data instead of reporting signed out")
    func restoreWaitsForTheUnlock() async throws {
        let device = ScriptedProtectedData(available: true)
        let h = try SimulatedSessionEnvironment { $0.protectedData = device }
        await h.startRecording()
        _ = try await h.signIn()
        h.signal.watch(device.changes)
        device.lock()
        let relaunched = await h.relaunch()
        let launch = Task { try await relaunched.restore() }
        await h.waitUntil("the launch waits for the unlock") { device.waitingCount == 1 }
        #expect(relaunched.stage == .signedOut)
        #expect(h.events.contains(where: Self.isLockedEvent), "the app is told the store is locked")
        #expect(h.store.count(of: .load) == 1, "the locked store was not read as empty")

        device.unlock()
        #expect(try await launch.value == .active)
        #expect(relaunched.identity?.subject == "alice")
    }

    @Test("without a protected-data source, a locked store is a transient error, never signed out, and the next launch restores")
    func aLockedStoreThrowsATransientError() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.store.failNext(.load, with: .locked("Keychain read: interaction not allowed"))
        let relaunched = await h.relaunch()
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await relaunched.restore() }.error)
        #expect(error == .storage(.locked("Keychain read: interaction not allowed")))
        #expect(error.isTransient)
        #expect(!error.requiresSignIn)
        #expect(h.events.contains(where: Self.isLockedEvent))
        #expect(h.store.record.session == signedIn, "nothing was wiped")

        // Unlocked: the same call now restores.
        #expect(try await relaunched.restore() == .active)
    }

    @Test("a locked store with a source waits for the unlock, then reads again")
    func aLockedReadWaitsThenRetries() async throws {
        let device = ScriptedProtectedData(available: true)
        let h = try SimulatedSessionEnvironment { $0.protectedData = device }
        _ = try await h.signIn()
        h.signal.watch(device.changes)
        // The source said available, but the store still found the device locked (a race with
        // the lock screen): the session waits for the next unlock.
        device.lock()
        h.store.failNext(.load, with: .locked("interaction not allowed"))
        let relaunched = await h.relaunch()
        let launch = Task { try await relaunched.restore() }
        await h.waitUntil("waiting for the unlock") { device.waitingCount == 1 }
        device.unlock()
        #expect(try await launch.value == .active)
    }

    // MARK: Background tasks

    @Test("a refresh runs inside one background task, ended once it is stored")
    func refreshInsideABackgroundTask() async throws {
        let tasks = RecordingBackgroundTasks()
        let h = try SimulatedSessionEnvironment { $0.backgroundTasks = tasks }
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3600))
        _ = try await h.session.validAccessToken()
        await h.waitUntil("the refresh's work ended") { h.session.liveTaskCount == 0 }
        #expect(tasks.tasks == [.init(name: "SessionKit refresh", endCount: 1, expired: false)])
    }

    @Test("a refresh a sign-out overtakes still ends its background task, and the sign-out has its own")
    func cancelledRefreshEndsItsTask() async throws {
        let tasks = RecordingBackgroundTasks()
        let h = try SimulatedSessionEnvironment { $0.backgroundTasks = tasks }
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3600))
        h.provider.script(.slow(.seconds(5)), on: .token)
        let session = h.session
        let caller = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.clock.waitForSleepers(count: 1)
        try await h.session.signOut()
        _ = await caller.value
        await h.waitUntil("every attempt ended") { h.session.liveTaskCount == 0 }
        #expect(tasks.tasks.map(\.name) == ["SessionKit refresh", "SessionKit sign-out"])
        #expect(tasks.tasks.allSatisfy { $0.endCount == 1 })
    }

    @Test("a task the system expires is ended there, once; the session does not end it again")
    func anExpiredTaskIsEndedOnce() async throws {
        let tasks = RecordingBackgroundTasks()
        let h = try SimulatedSessionEnvironment { $0.backgroundTasks = tasks }
        _ = try await h.signIn()
        h.provider.script(.slow(.seconds(5)), on: .revocation)
        let signOut = Task { try await h.session.signOut() }
        await h.clock.waitForSleepers(count: 1)
        #expect(tasks.openTasks.map(\.name) == ["SessionKit sign-out"])
        tasks.expireOpenTasks()
        h.clock.advanceToNextDeadline()
        try await signOut.value
        await h.waitUntil("the attempt ended") { h.session.liveTaskCount == 0 }
        #expect(tasks.tasks == [.init(name: "SessionKit sign-out", endCount: 1, expired: true)])
    }

    @Test("no background time granted: the work runs all the same")
    func noBackgroundTimeStillRuns() async throws {
        let tasks = RecordingBackgroundTasks(grants: false)
        let h = try SimulatedSessionEnvironment { $0.backgroundTasks = tasks }
        _ = try await h.signIn()
        try await h.session.signOut()
        #expect(h.session.stage == .signedOut)
        #expect(tasks.tasks.isEmpty)
    }
}
