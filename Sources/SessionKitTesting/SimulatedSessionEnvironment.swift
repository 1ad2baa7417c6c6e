import Foundation
import SessionKit
import SessionKitJOSE
import Synchronization

/// A `Session` wired to the test kit: a ``TestClock``, a ``SimulatedProvider``, a
/// ``ScriptedPresenter`` and an ``InMemoryCredentialStore``, plus an ordered log of everything the
/// session published.
///
/// It is what an app's own tests (and the walkthrough) build on:
///
/// ```swift
/// let env = try SimulatedSessionEnvironment()
/// env.presenter.enqueue(.approve(subject: "alice"))
/// try await env.session.signIn()
/// env.clock.advance(by: .seconds(3540))
/// _ = try await env.session.validAccessToken()   // refreshes, verified
/// #expect(env.provider.tokenRequestCount == 2)
/// ```
public final class SimulatedSessionEnvironment: Sendable {
    /// The clock every wait runs on.
    public let clock: TestClock
    /// The in-process identity provider.
    public let provider: SimulatedProvider<TestClock>
    /// The handoff presenter; enqueue its answers before signing in.
    public let presenter: ScriptedPresenter
    /// The credential store (and device-credential store).
    public let store: InMemoryCredentialStore
    /// The session under test.
    public let session: Session<TestClock>
    /// The session's configuration.
    public let configuration: SessionConfiguration
    private let log = EventLog()

    /// Builds the environment.
    ///
    /// - Parameters:
    ///   - provider: the simulated provider's configuration.
    ///   - store: the store to start from (for restore scenarios); a new empty one by default.
    ///   - seed: seeds the retry jitter, so runs are reproducible.
    ///   - configure: adjusts the session configuration (timeouts, policies).
    public init(
        provider providerConfiguration: SimulatedProviderConfiguration = SimulatedProviderConfiguration(),
        clock: TestClock = TestClock(), store: InMemoryCredentialStore = InMemoryCredentialStore(), seed: UInt64 = 1,
        configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws {
        self.clock = clock
        let keys = try SimulatedProviderKeys.shared(count: 3)
        let provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: clock, now: { clock.wallClockNow() }, signingKeys: keys)
        self.provider = provider
        self.presenter = ScriptedPresenter(provider: provider)
        self.store = store
        var configuration = SessionConfiguration(provider: try provider.providerConfiguration())
        configure(&configuration)
        self.configuration = configuration
        let deviceKeys = DeviceKeyManager(
            endpoint: configuration.provider.deviceKeyExchangeEndpoint!, platform: configuration.devicePlatform, transport: provider,
            store: store, now: { clock.wallClockNow() }, makeDeviceUUID: { "00000000-0000-4000-8000-000000000001" })
        self.session = Session(
            configuration: configuration, transport: provider, store: store, presenter: presenter, deviceKeys: deviceKeys,
            clock: clock, wallClock: { clock.wallClockNow() }, random: SeededRandomNumberGenerator(seed: seed))
    }

    /// Starts recording the session's events into ``events``. Call once, before the scenario.
    public func startRecording() async {
        let log = self.log
        await session.addObserver { event in log.append(event) }
    }

    /// Everything the session published since ``startRecording()``, in order.
    public var events: [SessionEvent] {
        log.events
    }

    /// The recorded transitions as `from→to` pairs, the compact form tests compare.
    public var transitions: [String] {
        events.compactMap { event in
            guard case .transition(let transition) = event else { return nil }
            return "\(transition.from.map(\.rawValue) ?? "nil")→\(transition.to.rawValue)"
        }
    }

    /// Forgets the recorded events.
    public func clearEvents() {
        log.clear()
    }
}

/// The recorded events, shared with the session's observer.
private final class EventLog: Sendable {
    private let storage = Locked<[SessionEvent]>([])

    func append(_ event: SessionEvent) {
        storage.withLock { $0.append(event) }
    }

    var events: [SessionEvent] {
        storage.withLock { $0 }
    }

    func clear() {
        storage.withLock { $0.removeAll() }
    }
}
