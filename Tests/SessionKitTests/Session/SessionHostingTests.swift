import Foundation
import SessionKit
import SessionKitTesting
import Synchronization
import Testing

@testable import SessionKit

/// Who runs a session's work: the session's own task (apps), the host's task through `run()`
/// (servers, command-line tools), or a scope (`withSession`).
@Suite("Session hosting")
struct SessionHostingTests {
    @Test("a session run by its host does its work only inside run(), and cancelling run() shuts it down")
    func hostRunsTheWork() async throws {
        let env = try SimulatedSessionEnvironment { $0.runsInHostTask = true }
        let session = env.session
        env.presenter.enqueue(.approve(subject: "alice"))
        let signIn = Task { try await session.signIn() }
        // The presentation is handed over and waits for the host: nothing was presented.
        await env.waitUntil { session.stage == .handoff && session.liveTaskCount == 2 }
        #expect(env.presenter.presentedRequests.isEmpty)

        let host = Task { await session.run() }
        let identity = try await signIn.value
        #expect(identity.subject == "alice")
        #expect(session.stage == .active)

        // A refresh the host runs, then the host's cancellation: the session shuts down.
        env.clock.advance(by: .seconds(3600))
        env.provider.script(.slow(.seconds(5)), on: .token)
        let caller = Task { try await session.validAccessToken() }
        await env.waitForWaitingCallers(1)
        host.cancel()
        await host.value
        await #expect(throws: SessionError.shutDown) { try await caller.value }
        #expect(session.liveTaskCount == 0)
        await #expect(throws: SessionError.shutDown) { try await session.validAccessToken() }
    }

    @Test("run() on a session with a task of its own returns once the session is shut down")
    func runBesideTheSessionsOwnTask() async throws {
        let env = try SimulatedSessionEnvironment()
        let session = env.session
        env.presenter.enqueue(.approve(subject: "alice"))
        try await session.signIn()
        let running = Task { await session.run() }
        await session.shutdown()
        await running.value
        #expect(session.liveTaskCount == 0)
        await #expect(throws: SessionError.shutDown) { try await session.validAccessToken() }
    }

    @Test("withSession runs the session inside the scope and shuts it down when the body ends, returning its result")
    func scopedSession() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        let kept = Mutex<Session?>(nil)
        let clock = env.clock
        let wallClock: @Sendable () -> Date = { clock.wallClockNow() }
        let subject = try await withSession(
            configuration: env.configuration, transport: env.provider, store: env.store, presenter: env.presenter, clock: env.clock,
            wallClock: wallClock
        ) { session in
            kept.withLock { $0 = session }
            #expect(session.configuration.runsInHostTask)
            return try await session.signIn().subject
        }
        #expect(subject == "alice")
        let session = try #require(kept.withLock { $0 })
        #expect(session.liveTaskCount == 0)
        await #expect(throws: SessionError.shutDown) { try await session.validAccessToken() }
        // Nothing stored was changed by the shutdown: the next session restores the sign-in.
        #expect(try await env.relaunch().restore() == .active)
    }

    @Test("withSession rethrows the body's error after the shutdown, and a caller still waiting is answered")
    func scopedSessionThrows() async throws {
        struct Stop: Error, Equatable {}
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.neverAnswer)
        let waiting = Mutex<Task<SessionIdentity, any Error>?>(nil)
        await #expect(throws: Stop()) {
            try await withSession(
                configuration: env.configuration, transport: env.provider, store: env.store, presenter: env.presenter, clock: env.clock
            ) { session throws(Stop) in
                let signIn = Task { try await session.signIn() }
                waiting.withLock { $0 = signIn }
                await env.presenter.waitForSuspendedPresentations(count: 1)
                throw Stop()
            }
        }
        let signIn = try #require(waiting.withLock { $0 })
        await #expect(throws: SessionError.shutDown) { try await signIn.value }
    }

    @Test("a session's shutdown ends the device-key manager it was given, however it was made")
    func shutdownEndsDeviceKeyWork() async throws {
        let env = try SimulatedSessionEnvironment()
        // The test kit makes its manager through the public initialiser, with an owner of its own.
        let manager = try #require(env.session.deviceKeys as? DeviceKeyManager)
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.script(.slow(.seconds(30)), on: .deviceKeyExchange)
        let token = try await env.session.validAccessToken()
        let exchange = Task { try await manager.deviceKey(accessToken: token.secret) }
        await env.waitUntil { manager.liveTaskCount == 1 }
        await env.session.shutdown()
        #expect(manager.liveTaskCount == 0)
        await #expect(throws: DeviceKeyManager.ExchangeError.cancelled) { try await exchange.value }
    }
}
