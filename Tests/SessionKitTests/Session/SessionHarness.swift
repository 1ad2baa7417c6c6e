import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Synchronization
import Testing

/// A `Session` on the test kit, wired like `SimulatedSessionEnvironment` but with two taps that
/// actor tests need: the transport records every secret the provider hands out (so a test can
/// prove a rejected token never surfaced), and the store records every record it saved (so a test
/// can prove what was, and was never, held as current).
///
/// Each test builds its own harness; the RSA keys are the process-wide shared ones, so building one
/// costs no key generation.
final class SessionHarness: Sendable {
    let clock: TestClock
    let provider: SimulatedProvider<TestClock>
    let presenter: ScriptedPresenter
    /// The store the session writes through; it keeps every saved record.
    let journal: JournalingStore
    /// Every token, code, device key and device secret the provider issued, as the app saw them.
    let issued = IssuedSecrets()
    let configuration: SessionConfiguration
    let session: Session
    /// The wall-clock date at simulated time zero.
    let epoch: Date
    private let transport: TappedTransport
    private let recorder = EventRecorder()
    /// Wakes ``waitUntil(_:_:sourceLocation:)``: notified by the session, the clock, the provider,
    /// the presenter, the store and the recorder.
    let signal = ChangeSignal()

    /// The store's current contents.
    var store: InMemoryCredentialStore { journal.base }

    init(
        provider providerConfiguration: SimulatedProviderConfiguration = SimulatedProviderConfiguration(),
        store: InMemoryCredentialStore = InMemoryCredentialStore(), seed: UInt64 = 1,
        configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws {
        let clock = TestClock()
        self.clock = clock
        self.epoch = clock.wallClockNow()
        let provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 3))
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
        self.journal = JournalingStore(base: store)
        self.transport = TappedTransport(base: provider, issued: issued)
        // The 1pass.dev profile with the UserInfo, end-session and device authorization endpoints.
        var configuration = SessionConfiguration(provider: try provider.providerConfiguration())
        configure(&configuration)
        self.configuration = configuration
        self.session = Self.makeSession(
            configuration: configuration, transport: transport, journal: journal, presenter: presenter, clock: clock, seed: seed)
        for feed in [session.changes, clock.changes, provider.changes, presenter.changes, store.changes] { signal.watch(feed) }
    }

    private static func makeSession(
        configuration: SessionConfiguration, transport: TappedTransport, journal: JournalingStore, presenter: ScriptedPresenter,
        clock: TestClock, seed: UInt64
    ) -> Session {
        let deviceKeys = DeviceKeyManager(
            endpoint: configuration.provider.deviceKeyExchangeEndpoint!, platform: configuration.devicePlatform,
            transport: transport, store: journal.base, now: { clock.wallClockNow() },
            makeDeviceUUID: { "00000000-0000-4000-8000-000000000001" })
        return Session(
            configuration: configuration, transport: transport, store: journal, presenter: presenter, deviceKeys: .custom(deviceKeys),
            clock: clock, wallClock: { clock.wallClockNow() }, random: SeededRandomNumberGenerator(seed: seed))
    }

    /// A second `Session` on the same provider, store and clock: the app after a relaunch.
    /// Its events go to the same recording.
    func relaunch(seed: UInt64 = 1) async -> Session {
        let relaunched = Self.makeSession(
            configuration: configuration, transport: transport, journal: journal, presenter: presenter, clock: clock, seed: seed)
        signal.watch(relaunched.changes)
        let recorder = self.recorder
        let signal = self.signal
        relaunched.addObserver {
            recorder.append($0)
            signal.notify()
        }
        return relaunched
    }

    // MARK: Recording

    /// Starts recording the session's events; call before the scenario.
    func startRecording() async {
        let recorder = self.recorder
        let signal = self.signal
        session.addObserver {
            recorder.append($0)
            signal.notify()
        }
    }

    /// Everything published since ``startRecording()``, in order.
    var events: [SessionEvent] { recorder.events }

    /// The recorded transitions as `from→to`.
    var transitions: [String] {
        events.compactMap { event in
            guard case .transition(let transition) = event else { return nil }
            return "\(transition.from.map(\.rawValue) ?? "nil")→\(transition.to.rawValue)"
        }
    }

    /// The recorded events without dates: the exact sequence a test compares.
    var steps: [Step] { events.map(Step.init) }

    /// The simulated time (seconds since the clock started) of each recorded transition, in order.
    var transitionTimes: [Double] {
        events.compactMap { event in
            guard case .transition(let transition) = event else { return nil }
            return transition.date.timeIntervalSince(epoch)
        }
    }

    /// The `retrying` reasons recorded, in order.
    var retries: [(attempt: Int, afterSeconds: Double, because: SessionError)] {
        events.compactMap { event in
            guard case .transition(let transition) = event, case .retrying(let attempt, let after, let because) = transition.reason.kind
            else { return nil }
            return (attempt, after, because)
        }
    }

    /// What the provider answered the last refresh it refused, as the `refreshRejected` reason carries it.
    var refusedRefreshAnswer: ProviderError? {
        events.reversed().lazy.compactMap { event -> ProviderError? in
            guard case .transition(let transition) = event, case .refreshRejected(let answer) = transition.reason.kind else { return nil }
            return answer
        }.first
    }

    /// How many `deferredRevocationCompleted` events were recorded.
    var deferredRevocations: Int {
        events.count { $0 == .deferredRevocationCompleted }
    }

    // MARK: Driving

    /// Signs in as `subject` (the presenter approves) and returns the stored session.
    @discardableResult
    func signIn(as subject: String = "alice") async throws -> StoredSession {
        presenter.enqueue(.approve(subject: subject))
        try await session.signIn()
        return try #require(store.record.session)
    }

    /// Plays the provider's authorization page for the pending handoff (the latest presented
    /// request) and returns the callback URL, recording its code.
    func authorizePending(as subject: String = "alice", decision: SimulatedProviderDecision = .approve) throws -> URL {
        let request = try #require(presenter.presentedRequests.last)
        let callback = try provider.authorize(request.authorizationURL, subject: subject, decision: decision)
        issued.recordCallback(callback)
        return callback
    }

    /// Suspends until `condition` holds, checking it now and after every change of the session,
    /// the clock, the provider, the presenter, the store or the recorded events (the test kit's
    /// ``ChangeSignal``). `what` names the condition for the reader.
    func waitUntil(_ what: String = "condition", _ condition: () async -> Bool) async {
        await signal.wait(until: condition)
    }

    /// Suspends until every cancellation the session sent has reached its work: a cancelled
    /// timer's sleep is off the clock, so the clock's next deadline is a live one.
    func settleCancellations() async {
        let session = self.session
        await signal.wait { session.cancellationsInFlight == 0 }
    }

    /// Suspends until `count` callers wait for the refresh in flight.
    func waitForWaitingCallers(_ count: Int) async {
        let session = self.session
        await waitUntil("\(count) callers wait") { session.waitingCallerCount == count }
    }

    /// Waits until `count` tasks sleep on the clock, then moves time to the earliest deadline.
    /// Returns how far time moved.
    @discardableResult
    func advanceToNextSleeper(count: Int = 1) async -> Duration? {
        await settleCancellations()
        await clock.waitForSleepers(count: count)
        return clock.advanceToNextDeadline()
    }

    /// Seconds since the clock started.
    var elapsed: Double {
        let (seconds, attoseconds) = clock.now.offset.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

// MARK: - Steps

extension SessionHarness {
    /// One recorded event with its date removed.
    enum Step: Hashable, CustomStringConvertible {
        case move(SessionStage?, SessionStage, TransitionReason)
        case event(SessionEvent)

        init(_ event: SessionEvent) {
            if case .transition(let transition) = event {
                self = .move(transition.from, transition.to, transition.reason)
            } else {
                self = .event(event)
            }
        }

        var description: String {
            switch self {
            case .move(let from, let to, let reason): "\(from.map(\.rawValue) ?? "nil")→\(to) (\(reason))"
            case .event(let event): "\(event)"
            }
        }

        /// The three steps of a sign-in that the presenter approves for `subject`.
        static func signIn(_ subject: String = "alice") -> [Step] {
            [
                .move(.signedOut, .handoff, .signInRequested),
                .move(.handoff, .verifying, .callbackReceived),
                .move(.verifying, .active, .verified(subject: subject)),
            ]
        }

        /// A refresh of a token due in `dueIn` seconds (60 by default), served to `callers`.
        static func refresh(callers: Int = 1, dueIn: Int = 60) -> [Step] {
            [
                .move(.active, .refreshing, .tokenDue(inSeconds: dueIn, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: callers)),
            ]
        }
    }
}

// MARK: - Taps

extension SessionHarness {
    /// Every secret a provider issued, collected where the app received it.
    final class IssuedSecrets: Sendable {
        struct Values: Sendable {
            var accessTokens: [Secret] = []
            var refreshTokens: [Secret] = []
            var idTokens: [Secret] = []
            var codes: [Secret] = []
            var deviceKeys: [Secret] = []
            var deviceSecrets: [Secret] = []
            var deviceCodes: [Secret] = []
            var endSessionStates: [Secret] = []
        }

        private let values = Locked(Values())

        var accessTokens: [Secret] { values.withLock { $0.accessTokens } }
        var refreshTokens: [Secret] { values.withLock { $0.refreshTokens } }
        var idTokens: [Secret] { values.withLock { $0.idTokens } }
        var codes: [Secret] { values.withLock { $0.codes } }
        var deviceKeys: [Secret] { values.withLock { $0.deviceKeys } }
        var deviceCodes: [Secret] { values.withLock { $0.deviceCodes } }
        var deviceSecrets: [Secret] { values.withLock { $0.deviceSecrets } }
        var endSessionStates: [Secret] { values.withLock { $0.endSessionStates } }

        /// Every secret value, with the signature segment of each id_token on its own as well.
        /// Kept as `Secret`, so a failing expectation never prints one.
        var all: [Secret] {
            values.withLock { values in
                let signatures = values.idTokens.compactMap { $0.value.split(separator: ".").last.map { Secret(String($0)) } }
                return values.accessTokens + values.refreshTokens + values.idTokens + signatures + values.codes + values.deviceKeys
                    + values.deviceSecrets + values.deviceCodes + values.endSessionStates
            }
        }

        func recordCallback(_ url: URL) {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            guard let code = items.first(where: { $0.name == "code" })?.value else { return }
            values.withLock { $0.codes.append(Secret(code)) }
        }

        /// The `state` an end-session URL carries, which the return must echo.
        func recordEndSession(_ url: URL) {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            guard let state = items.first(where: { $0.name == "state" })?.value else { return }
            values.withLock { $0.endSessionStates.append(Secret(state)) }
        }

        func recordResponse(_ body: Data) {
            guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return }
            values.withLock { values in
                if let value = object["access_token"] as? String { values.accessTokens.append(Secret(value)) }
                if let value = object["refresh_token"] as? String { values.refreshTokens.append(Secret(value)) }
                if let value = object["id_token"] as? String { values.idTokens.append(Secret(value)) }
                if let value = object["device_key"] as? String { values.deviceKeys.append(Secret(value)) }
                if let value = object["device_secret"] as? String { values.deviceSecrets.append(Secret(value)) }
                if let value = object["device_code"] as? String { values.deviceCodes.append(Secret(value)) }
            }
        }
    }

    /// Passes requests to the simulated provider and records the secrets in its answers.
    struct TappedTransport: HTTPTransport {
        let base: SimulatedProvider<TestClock>
        let issued: IssuedSecrets

        func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
            let response = try await base.send(request)
            issued.recordResponse(response.body)
            return response
        }
    }

    /// A credential store that keeps every record saved through it, in order; its guest
    /// credential is the base store's.
    final class JournalingStore: CredentialStore, GuestCredentialStore {
        let base: InMemoryCredentialStore
        private let saved = Locked<[CredentialRecord]>([])

        init(base: InMemoryCredentialStore) {
            self.base = base
        }

        /// Every record successfully saved, in order.
        var savedRecords: [CredentialRecord] { saved.withLock { $0 } }

        func load() async throws(CredentialStoreError) -> CredentialRecord {
            try await base.load()
        }

        func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
            try await base.save(record)
            saved.withLock { $0.append(record) }
        }

        func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
            try await base.withLease(body)
        }

        func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
            try await base.loadGuest()
        }

        func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
            try await base.saveGuest(credential)
        }

        func removeGuest() async throws(CredentialStoreError) {
            try await base.removeGuest()
        }
    }

    /// The session's events, appended by a synchronous observer.
    final class EventRecorder: Sendable {
        private let storage = Locked<[SessionEvent]>([])

        func append(_ event: SessionEvent) {
            storage.withLock { $0.append(event) }
        }

        var events: [SessionEvent] { storage.withLock { $0 } }
    }
}

/// The outcome of an async throwing call, for tests that start a call and look at its result later.
enum SessionCallResult<Value: Sendable>: Sendable {
    case value(Value)
    case error(SessionError)

    init(_ body: () async throws(SessionError) -> Value) async {
        do {
            self = .value(try await body())
        } catch {
            self = .error(error)
        }
    }

    var error: SessionError? {
        if case .error(let error) = self { return error }
        return nil
    }

    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

extension SessionHarness {
    /// Values appended from any task, read in order.
    final class Collected<Value: Sendable>: Sendable {
        private let storage = Locked<[Value]>([])

        func append(_ value: Value) {
            storage.withLock { $0.append(value) }
        }

        var values: [Value] { storage.withLock { $0 } }
    }
}
