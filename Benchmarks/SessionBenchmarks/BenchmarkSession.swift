import Foundation
import SessionKit
import SessionKitTesting

/// A session wired as an app wires it, but for the provider: every request goes through a
/// ``SuspendingTransport`` over the simulated provider, and credentials go to a
/// `FileCredentialStore` in a temporary directory of its own, which writes durably (temporary
/// file, `fsync`, `rename`, `fsync` of the directory) on the disk that holds `TMPDIR`. Time is a
/// ``TestClock``, so simulated time costs nothing and only the work is timed.
struct BenchmarkSession: Sendable {
    let clock: TestClock
    let provider: SimulatedProvider<TestClock>
    let transport: SuspendingTransport<SimulatedProvider<TestClock>>
    let presenter: ScriptedPresenter
    let configuration: SessionConfiguration
    let directory: BenchmarkDirectory
    let store: FileCredentialStore
    let session: Session

    /// A provider, a session on it and an empty store; nobody signed in yet. With `dpop`, the
    /// provider checks a proof on every token request and binds its tokens, and the session
    /// requires DPoP (its own key per sign-in, kept with the record).
    init(provider providerConfiguration: SimulatedProviderConfiguration = SimulatedProviderConfiguration(), dpop: Bool = false) throws {
        let clock = TestClock()
        var providerConfiguration = providerConfiguration
        if dpop { providerConfiguration.dpop = SimulatedProviderDPoP() }
        let provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: SimulatedProviderKeys.shared(count: 1))
        try self.init(clock: clock, provider: provider, transport: SuspendingTransport(provider), dpop: dpop)
    }

    /// Another session on the same provider, transport and clock, with a store of its own.
    init(beside other: BenchmarkSession) throws {
        try self.init(clock: other.clock, provider: other.provider, transport: other.transport)
    }

    private init(
        clock: TestClock, provider: SimulatedProvider<TestClock>, transport: SuspendingTransport<SimulatedProvider<TestClock>>,
        dpop: Bool = false
    ) throws {
        self.clock = clock
        self.provider = provider
        self.transport = transport
        presenter = ScriptedPresenter(provider: provider)
        var configuration = SessionConfiguration(provider: try provider.providerConfiguration())
        if dpop { configuration.dpop = .required }
        self.configuration = configuration
        directory = BenchmarkDirectory()
        store = FileCredentialStore(directory: directory.url)
        session = Session(
            configuration: configuration, transport: transport, store: store, presenter: presenter, clock: clock,
            wallClock: { [clock] in clock.wallClockNow() })
    }

    /// Signs alice in through the scripted presenter.
    func signIn() async throws {
        presenter.enqueue(.approve(subject: "alice"))
        try await session.signIn()
    }

    /// Shuts the session down and removes its store.
    func finish() async {
        await session.shutdown()
        directory.remove()
    }
}

/// A directory of its own under the temporary directory, for one store; the store creates it on
/// its first write, as it would in an app.
struct BenchmarkDirectory: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-benchmark-\(UUID().uuidString)")
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
