import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// What an app gets without wiring: automatic device keys, and a short initialiser.
@Suite("Session defaults")
struct SessionDefaultsTests {
    /// A session on the reference profile built without naming a device-key source.
    private func automaticSession(_ env: SimulatedSessionEnvironment, deviceKeys: DeviceKeySource = .automatic) -> Session {
        Session(
            configuration: env.configuration, transport: env.provider, store: env.store, presenter: env.presenter, deviceKeys: deviceKeys,
            clock: env.clock, wallClock: { [clock = env.clock] in clock.wallClockNow() })
    }

    @Test("account deletion works on the reference profile with no device-key wiring: disconnect, revoke, wipe, device reset, delete-data")
    func deletionWithAutomaticDeviceKeys() async throws {
        let env = try SimulatedSessionEnvironment()
        let session = automaticSession(env)
        let events = SessionEventCollector()
        session.addObserver { events.append($0) }
        env.presenter.enqueue(.approve(subject: "alice"))
        let signedIn = try await session.signIn()
        let refreshToken = try #require(env.store.record.session?.refreshToken)

        try await session.deleteAccount()
        #expect(session.stage == .signedOut)
        #expect(env.provider.requestCount(for: .deviceKeyExchange) == 1)
        #expect(env.provider.requestCount(for: .disconnect) == 1)
        #expect(env.store.record.session == nil)
        #expect(env.store.device == nil, "the device credential was reset")
        #expect(events.all.contains(.deleteUserData(subject: signedIn.effectiveSubject)))
        await env.waitUntil { env.store.record.pendingRevocations.isEmpty }
        #expect(!env.provider.isRefreshTokenActive(refreshToken))
    }

    @Test("with device keys turned off explicitly, the error names what is missing")
    func deletionWithoutDeviceKeys() async throws {
        let env = try SimulatedSessionEnvironment()
        let session = automaticSession(env, deviceKeys: .none)
        env.presenter.enqueue(.approve(subject: "alice"))
        try await session.signIn()
        await #expect(throws: SessionError.unsupported(.deviceKey)) {
            try await session.deleteAccount()
        }
        #expect(session.stage == .active)
        #expect(env.provider.requestCount(for: .disconnect) == 0)
    }

    @Test("a provider with no disconnect says so")
    func deletionWithoutADisconnectEndpoint() async throws {
        let env = try SimulatedSessionEnvironment()
        var configuration = env.configuration
        configuration.provider.disconnectEndpoint = nil
        let session = Session(
            configuration: configuration, transport: env.provider, store: env.store, presenter: env.presenter, clock: env.clock,
            wallClock: { [clock = env.clock] in clock.wallClockNow() })
        env.presenter.enqueue(.approve(subject: "alice"))
        try await session.signIn()
        await #expect(throws: SessionError.unsupported(.accountDeletion)) { try await session.deleteAccount() }
    }

    @Test("the short initialiser needs only the provider and a presenter")
    func shortInitialiser() async throws {
        let provider = try ProviderConfiguration.onePass(clientID: "app", redirectURI: URL(string: "com.example.app:/oauth/callback")!)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-defaults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let presenter = ScriptedPresenter(authorize: { _, _, _ throws(SimulatedProviderAuthorizationError) -> URL in throw .unknownClient })
        let session = Session(provider: provider, presenter: presenter, store: FileCredentialStore(directory: directory))
        #expect(try await session.restore() == .signedOut)
        #expect(session.configuration.provider.clientID == "app")
    }
}

/// Events from a synchronous observer.
final class SessionEventCollector: Sendable {
    private let events = Locked<[SessionEvent]>([])
    func append(_ event: SessionEvent) { events.withLock { $0.append(event) } }
    var all: [SessionEvent] { events.withLock { $0 } }
}
