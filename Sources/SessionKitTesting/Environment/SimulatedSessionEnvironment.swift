public import Foundation
public import SessionKit
import SessionKitCore
import SessionKitJOSE
import Synchronization

/// A `Session` wired to the test kit: a ``TestClock``, a ``SimulatedProvider``, a
/// ``ScriptedPresenter`` and an ``InMemoryCredentialStore``, an ordered log of everything the
/// session published, and waits on conditions (a stage, an event, waiting callers, requests).
///
/// It is what an app's own tests (and the walkthrough) build on:
///
/// ```swift
/// let env = try SimulatedSessionEnvironment()
/// env.presenter.enqueue(.approve(subject: "alice"))
/// try await env.session.signIn()
/// env.provider.script(.serverError(status: 503), on: .revocation, times: 2)
/// let signOut = Task { try await env.session.signOut() }
/// await env.advanceToNextSleeper()             // first retry after its backoff
/// await env.advanceToNextSleeper()             // second retry; the provider confirms
/// try await signOut.value
/// #expect(env.session.stage == .signedOut)
/// ```
///
/// Every wait checks its condition now and again after each change of the session, the clock,
/// the provider, the presenter, the store or the event log: no polling and no real time.
public final class SimulatedSessionEnvironment: Sendable {
    /// The clock every wait runs on.
    public let clock: TestClock
    /// The in-process identity provider.
    public let provider: SimulatedProvider<TestClock>
    /// The handoff presenter; enqueue its answers before signing in.
    public let presenter: ScriptedPresenter
    /// The credential store (and device-credential store): its current contents.
    public let store: InMemoryCredentialStore
    /// The store the session writes through: every record it saved, in order.
    public let journal: RecordingCredentialStore
    /// Every secret the provider issued, as the app received it.
    public let issued = IssuedSecrets()
    /// The session's transport: the provider, with a tap that records ``issued``.
    private let transport: IssuedSecretsTap
    /// The session under test.
    public let session: Session
    /// The session's configuration.
    public let configuration: SessionConfiguration
    /// Wakes the waits; notified by every part of the environment.
    public let signal = ChangeSignal()
    private let log = EventLog()
    private let seed: UInt64
    /// The wall-clock date at simulated time zero.
    public let epoch: Date

    /// Builds the environment.
    ///
    /// - Parameters:
    ///   - providerConfiguration: the simulated provider's configuration.
    ///   - clock: the simulated time every part of the environment runs on.
    ///   - store: the store to start from (for restore scenarios); a new empty one by default.
    ///   - seed: seeds the retry jitter, so runs are reproducible.
    ///   - configure: adjusts the session configuration (timeouts, policies).
    public init(
        provider providerConfiguration: SimulatedProviderConfiguration = SimulatedProviderConfiguration(),
        clock: TestClock = TestClock(), store: InMemoryCredentialStore = InMemoryCredentialStore(), seed: UInt64 = 1,
        configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws {
        self.clock = clock
        self.epoch = clock.wallClockNow()
        let keys = try SimulatedProviderKeys.shared(count: 3)
        let provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: clock, now: { clock.wallClockNow() }, signingKeys: keys)
        self.provider = provider
        let issued = self.issued
        self.presenter = ScriptedPresenter(
            authorize: { (url, subject, decision) throws(SimulatedProviderAuthorizationError) -> URL in
                let callback = try provider.authorize(url, subject: subject, decision: decision)
                issued.recordCallback(callback)
                return callback
            },
            endSession: { (url) throws(SimulatedProviderEndSessionError) -> URL? in
                issued.recordEndSession(url)
                return try provider.endSession(url)
            },
            decideDeviceCode: { userCode, subject, decision in
                provider.decideDeviceAuthorization(userCode: userCode, subject: subject, decision: decision)
            })
        self.store = store
        self.journal = RecordingCredentialStore(base: store)
        self.transport = IssuedSecretsTap(base: provider, issued: issued)
        self.seed = seed
        var configuration = SessionConfiguration(provider: try provider.providerConfiguration())
        configure(&configuration)
        self.configuration = configuration
        self.session = Self.makeSession(configuration, transport: transport, presenter: presenter, store: journal, clock: clock, seed: seed)
        for feed in [session.changes, clock.changes, provider.changes, presenter.changes, store.changes] { signal.watch(feed) }
    }

    private static func makeSession(
        _ configuration: SessionConfiguration, transport: IssuedSecretsTap, presenter: ScriptedPresenter,
        store: RecordingCredentialStore, clock: TestClock, seed: UInt64
    ) -> Session {
        let deviceKeys = DeviceKeyManager(
            endpoint: configuration.provider.deviceKeyExchangeEndpoint!, platform: configuration.devicePlatform, transport: transport,
            store: store.base, now: { clock.wallClockNow() }, makeDeviceUUID: { "00000000-0000-4000-8000-000000000001" })
        return Session(
            configuration: configuration, transport: transport, store: store, presenter: presenter, deviceKeys: .custom(deviceKeys),
            clock: clock, wallClock: { clock.wallClockNow() }, random: SeededRandomNumberGenerator(seed: seed))
    }

    /// A second `Session` on the same provider, store and clock: the app after a relaunch. Its
    /// events always go to the log (a relaunch is where a restore's story starts, whether or not
    /// ``startRecording(observer:)`` was called for the first session), and its changes wake the
    /// same waits.
    public func relaunch() async -> Session {
        let relaunched = Self.makeSession(
            configuration, transport: transport, presenter: presenter, store: journal, clock: clock, seed: seed)
        signal.watch(relaunched.changes)
        record(relaunched)
        return relaunched
    }

    // MARK: - Recording

    /// Starts recording the session's events into ``events``. Call once, before the scenario.
    ///
    /// `observer` (a narrator, a logger) sees each event first, this session's and every
    /// ``relaunch()``ed one's, before it is recorded and the waits wake: a wait on a recorded
    /// event returns only after the observer has seen it, so what a scenario prints after a wait
    /// always comes after the event.
    public func startRecording(observer: (@Sendable (SessionEvent) -> Void)? = nil) async {
        log.isRecording = true
        log.observer = observer
        record(session)
    }

    /// Sends `session`'s events to the observer, the log and the waits, in that order.
    private func record(_ session: Session) {
        let log = self.log
        let signal = self.signal
        let observer = log.observer
        session.addObserver { event in
            observer?(event)
            log.append(event)
            signal.notify()
        }
    }

    /// Everything the session published since ``startRecording(observer:)``, in order.
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

    /// The recorded `retrying` reasons, in order: the attempt that failed, the delay before the
    /// next, and the failure.
    public var retries: [(attempt: Int, afterSeconds: Double, because: SessionError)] {
        events.compactMap { event in
            guard case .transition(let transition) = event, case .retrying(let attempt, let after, let because) = transition.reason.kind
            else { return nil }
            return (attempt, after, because)
        }
    }

    /// How many refresh tokens of earlier sessions were revoked in the background so far.
    public var deferredRevocations: Int {
        events.filter { $0 == .deferredRevocationCompleted }.count
    }

    /// Forgets the recorded events.
    public func clearEvents() {
        log.clear()
    }

    // MARK: - Waiting on conditions

    /// Suspends until `condition` holds: checked now, and again after every change of the
    /// session, the clock, the provider, the presenter, the store or the recorded events. The
    /// condition runs on the caller's actor.
    public nonisolated(nonsending) func waitUntil(_ condition: () async -> Bool) async {
        await signal.wait(until: condition)
    }

    /// Suspends until the session is in `stage`.
    public func waitForStage(_ stage: SessionStage) async {
        let session = self.session
        await signal.wait { session.stage == stage }
    }

    /// What ``finish()`` found left over at the end of a scenario.
    public struct Leftovers: Error, CustomStringConvertible, Sendable {
        /// Each thing left over, in words (never a token or a code).
        public let items: [String]

        public var description: String {
            "the scenario left work behind: " + items.joined(separator: "; ")
        }
    }

    /// Ends the scenario, as a test's last line: checks that nothing is left over, then shuts the
    /// session down (every task it started ends) and checks that none outlived the shutdown.
    ///
    /// Left over is: a caller still waiting on the session (a sign-in, a refresh, a sign-out), work
    /// the session still has under way (a handoff, a refresh or its retry, a server-first
    /// operation, a background revocation), a presenter answer or a provider fault that was
    /// scripted and never used, or a task alive after the shutdown. Like TCA's
    /// `TestStore.finish()`, it makes a test say what it expects to remain rather than leave it
    /// unnoticed; it works with any test framework, by throwing.
    ///
    /// - Throws: ``Leftovers`` naming each thing left over. The session is shut down either way.
    public func finish() async throws(Leftovers) {
        await settleCancellations()
        var items: [String] = []
        let waiting = session.heldCallerCount
        if waiting > 0 { items.append("\(waiting) caller\(waiting == 1 ? "" : "s") still waiting on the session") }
        items += session.workInFlight.map { "\($0) still under way" }
        let answers = presenter.remainingBehaviourCount
        if answers > 0 { items.append("\(answers) scripted presenter answer\(answers == 1 ? "" : "s") never used") }
        for endpoint in SimulatedProviderEndpoint.allCases {
            let faults = provider.pendingFaultCount(on: endpoint)
            if faults > 0 { items.append("\(faults) scripted fault\(faults == 1 ? "" : "s") at \(endpoint) never used") }
        }
        await session.shutdown()
        let alive = session.liveTaskCount
        if alive > 0 { items.append("\(alive) task\(alive == 1 ? "" : "s") alive after the shutdown") }
        if !items.isEmpty { throw Leftovers(items: items) }
    }

    /// Suspends until every cancellation the session sent has reached its work: a cancelled
    /// timer's sleep is off the clock, so the clock's next deadline is a live one.
    public func settleCancellations() async {
        let session = self.session
        await signal.wait { session.cancellationsInFlight == 0 }
    }

    /// Suspends until `count` callers wait for the refresh in flight.
    public func waitForWaitingCallers(_ count: Int) async {
        let session = self.session
        await signal.wait { session.waitingCallerCount == count }
    }

    /// Suspends until a recorded event (since ``startRecording(observer:)``) satisfies `predicate`.
    public func waitForEvent(where predicate: @escaping (SessionEvent) -> Bool) async {
        let log = self.log
        await signal.wait { log.events.contains(where: predicate) }
    }

    /// Suspends until `count` background revocations of earlier refresh tokens completed.
    public func waitForDeferredRevocations(_ count: Int) async {
        await waitUntil { self.deferredRevocations >= count }
    }

    /// Suspends until the provider received `count` requests at `endpoint` in all.
    public func waitForRequests(_ count: Int, at endpoint: SimulatedProviderEndpoint) async {
        let provider = self.provider
        await signal.wait { provider.requestCount(for: endpoint) >= count }
    }

    /// Waits until `count` tasks sleep on the clock, then moves time to the earliest deadline.
    /// Returns how far time moved.
    @discardableResult
    public func advanceToNextSleeper(count: Int = 1) async -> Duration? {
        await settleCancellations()
        await clock.waitForSleepers(count: count)
        return clock.advanceToNextDeadline()
    }

    /// Simulated seconds since the clock started.
    public var elapsed: Double {
        let (seconds, attoseconds) = clock.now.offset.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// The recorded events, shared with the session's observer.
private final class EventLog: Sendable {
    private struct State {
        var events: [SessionEvent] = []
        var isRecording = false
        var observer: (@Sendable (SessionEvent) -> Void)?
    }

    private let storage = Locked(State())

    func append(_ event: SessionEvent) {
        storage.withLock { $0.events.append(event) }
    }

    var events: [SessionEvent] {
        storage.withLock { $0.events }
    }

    var isRecording: Bool {
        get { storage.withLock { $0.isRecording } }
        set { storage.withLock { $0.isRecording = newValue } }
    }

    var observer: (@Sendable (SessionEvent) -> Void)? {
        get { storage.withLock { $0.observer } }
        set { storage.withLock { $0.observer = newValue } }
    }

    func clear() {
        storage.withLock { $0.events.removeAll() }
    }
}
