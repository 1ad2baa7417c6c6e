import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The test kit's waits on conditions, as an app's own tests use them.
@Suite("Simulated session environment")
struct SimulatedSessionEnvironmentTests {
    @Test("wait for a stage, waiting callers, requests at an endpoint and an event")
    func waits() async throws {
        let env = try SimulatedSessionEnvironment()
        await env.startRecording()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(3600))
        env.provider.script(.slow(.seconds(2)), on: .token)
        let session = env.session
        let callers = (0..<3).map { _ in Task { try await session.validAccessToken() } }
        await env.waitForStage(.refreshing)
        await env.waitForRequests(1, at: .token)
        await env.waitForWaitingCallers(3)
        #expect(env.session.waitingCallerCount == 3)
        await env.advanceToNextSleeper()
        await env.waitForEvent { event in
            if case .transition(let transition) = event { transition.reason == .refreshed(callers: 3) } else { false }
        }
        for caller in callers { _ = try await caller.value }
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        try await env.finish()
    }

    @Test("a relaunched session shares the store, the clock and the waits")
    func relaunch() async throws {
        let env = try SimulatedSessionEnvironment()
        await env.startRecording()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let relaunched = await env.relaunch()
        #expect(try await relaunched.restore() == .active)
        await env.waitForEvent {
            $0
                == .transition(
                    SessionTransition(from: .signedOut, to: .active, reason: .restored(subject: "alice"), date: env.clock.wallClockNow()))
        }
        #expect(env.transitions.last == "signedOut→active")
    }
}
