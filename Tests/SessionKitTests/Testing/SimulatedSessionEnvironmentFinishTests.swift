import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `finish()`: a scenario's last line, which says what it left behind.
@Suite("Simulated session environment: finish")
struct SimulatedSessionEnvironmentFinishTests {
    @Test("a scenario that leaves nothing behind finishes, and the session is shut down")
    func cleanScenario() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(3600))
        _ = try await env.session.validAccessToken()
        try await env.finish()
        #expect(env.session.liveTaskCount == 0)
        await #expect(throws: SessionError.shutDown) { try await env.session.validAccessToken() }
    }

    @Test("a caller still waiting and the handoff it waits on are named, and the caller is answered")
    func waitingCaller() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.neverAnswer)
        let session = env.session
        let signIn = Task { try await session.signIn() }
        await env.presenter.waitForSuspendedPresentations(count: 1)
        let leftovers = await #expect(throws: SimulatedSessionEnvironment.Leftovers.self) { try await env.finish() }
        #expect(
            leftovers?.items == [
                "1 caller still waiting on the session", "a handoff to the provider still under way",
            ])
        await #expect(throws: SessionError.shutDown) { try await signIn.value }
        #expect(env.session.liveTaskCount == 0)
    }

    @Test("a refresh backing off after a failure is work still under way")
    func retryTimerLeft() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        // Due within the lead time: a transient failure hands out the current token and backs off.
        env.clock.advance(by: .seconds(3590))
        env.provider.script(.serverError(status: 503, retryAfterSeconds: nil), on: .token)
        _ = try await env.session.validAccessToken()
        await env.waitUntil { env.session.stage == .refreshing && env.provider.pendingFaultCount(on: .token) == 0 }
        let leftovers = await #expect(throws: SimulatedSessionEnvironment.Leftovers.self) { try await env.finish() }
        #expect(leftovers?.items == ["a refresh still under way"])
    }

    @Test("scripted answers and faults never used are named")
    func unusedScripts() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"), .approve(subject: "bob"))
        env.provider.script(.serverError(status: 503, retryAfterSeconds: nil), on: .revocation, times: 2)
        try await env.session.signIn()
        let leftovers = await #expect(throws: SimulatedSessionEnvironment.Leftovers.self) { try await env.finish() }
        #expect(
            leftovers?.items == [
                "1 scripted presenter answer never used", "2 scripted faults at revocation never used",
            ])
        // Nothing in the description is a secret: only counts and names.
        #expect(leftovers?.description.hasPrefix("the scenario left work behind: ") == true)
    }
}
