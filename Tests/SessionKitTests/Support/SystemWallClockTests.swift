import Foundation
import SessionKitTesting
import Testing

@testable import SessionKit

@Suite struct SystemWallClockTests {
    @Test("the approximate clock is within a few milliseconds of the precise one")
    func approximateNowIsCloseToNow() {
        for _ in 0..<1000 {
            let before = Date()
            let approximate = SystemWallClock.approximateNow()
            let after = Date()
            // The coarse clock trails by about one tick (4 ms here); 50 ms covers HZ=100 and jitter.
            #expect(approximate.timeIntervalSince(before) > -0.05)
            #expect(approximate <= after.addingTimeInterval(0.001))
        }
    }

    /// A session wired as an app wires it (no wall clock given, so the system's), against the
    /// simulated provider on real time.
    private static func systemSession(accessTokenLifetime: Duration) async throws -> (Session, SimulatedProvider<ContinuousClock>) {
        let providerConfiguration = SimulatedProviderConfiguration(accessTokenLifetime: accessTokenLifetime)
        let provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: ContinuousClock(), now: { Date() },
            signingKeys: SimulatedProviderKeys.shared(count: 1))
        let presenter = ScriptedPresenter(provider: provider)
        let configuration = SessionConfiguration(
            provider: try ProviderConfiguration.onePass(
                clientID: providerConfiguration.clientID, redirectURI: providerConfiguration.redirectURI,
                issuer: providerConfiguration.issuer))
        let session = Session(
            configuration: configuration, transport: provider, store: InMemoryCredentialStore(), presenter: presenter,
            clock: ContinuousClock())
        presenter.enqueue(.approve(subject: "alice"))
        try await session.signIn()
        return (session, provider)
    }

    @Test("on the system clock, a fresh token is handed out as it is")
    func freshOnTheSystemClock() async throws {
        let (session, provider) = try await Self.systemSession(accessTokenLifetime: .seconds(3600))
        let first = try await session.validAccessToken()
        let second = try await session.validAccessToken()
        #expect(first == second)
        #expect(provider.requestCount(grantType: "refresh_token") == 0)
        await session.shutdown()
    }

    @Test("on the system clock, a token inside the lead time is due: every call refreshes")
    func dueOnTheSystemClock() async throws {
        // 30 s tokens with the default 60 s lead time are due as soon as they are issued.
        let (session, provider) = try await Self.systemSession(accessTokenLifetime: .seconds(30))
        let first = try await session.validAccessToken()
        let second = try await session.validAccessToken()
        #expect(first != second)
        #expect(provider.requestCount(grantType: "refresh_token") == 2)
        await session.shutdown()
    }
}
