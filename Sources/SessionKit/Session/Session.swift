import Foundation
import SessionKitJOSE
import Synchronization

/// Obtains the device-bound key that the disconnect call presents (1pass.dev).
public protocol DeviceKeyProviding: Sendable {
    /// A device key for the account that `accessToken` belongs to.
    func disconnectKey(accessToken: Secret) async throws -> Secret
    /// Forgets the device credential (after an account deletion).
    func reset() async throws
}

/// The life of one signed-in session: sign-in, verification, fresh tokens, sign-out, deletion.
///
/// `Session` is a thin shell around a pure state machine: each public call runs one synchronous
/// transition and performs the actions it returns; network and storage work runs in child tasks
/// that report back as events. All waiting happens on the injected `clock`, all token-time
/// judgements use the injected wall clock, so a test can drive a whole session in simulated time.
///
/// ```swift
/// let session = Session(configuration: configuration, transport: URLSessionTransport(clock: .continuous),
///                       store: FileCredentialStore(directory: url), presenter: presenter,
///                       clock: ContinuousClock(), wallClock: { Date() })
/// try await session.restore()
/// let token = try await session.validAccessToken()
/// ```
public actor Session<C: Clock> where C.Duration == Duration {
    /// Unchecked continuations: the machine resumes every waiter exactly once (its script tests
    /// check that for every stage and event), and a checked one costs an allocation per caller.
    typealias Waiter = SessionWaiter
    typealias Machine = SessionStateMachine<VerifiedTokens, Waiter>

    /// How this session behaves.
    public nonisolated let configuration: SessionConfiguration
    let client: ProviderClient
    let verifier: TokenVerifier
    let store: any CredentialStore
    let presenter: any HandoffPresenter
    let deviceKeys: (any DeviceKeyProviding)?
    let clock: C
    let wallClock: @Sendable () -> Date

    var machine: Machine
    var random: AnyRandomNumberGenerator
    private var timers: [TimerID: Task<Void, Never>] = [:]
    private var presenterTask: Task<Void, Never>?
    private var subscribers: [UInt64: AsyncStream<SessionEvent>.Continuation] = [:]
    private var nextSubscriber: UInt64 = 0
    private var observers: [@Sendable (SessionEvent) -> Void] = []
    var backgroundRevoker: Task<Void, Never>?
    private var refreshTask: Task<Void, Never>?
    /// What ``validAccessToken()`` may do without entering the actor: hand out a fresh token, or
    /// queue to join the refresh in flight.
    private let gate = Locked(TokenGate<Waiter>())
    /// Whether the gate is joining a refresh, readable without its lock. A stale answer costs
    /// nothing but a detour: the gate checks again under its lock when the caller queues.
    private let gateIsJoining = Atomic(false)
    /// The last waiter id handed out. Every caller's id comes from here, so ids follow arrival
    /// order across both ways into the machine.
    private let lastWaiterID = Atomic<UInt64>(0)

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: The provider and the session's policies.
    ///   - transport: Every request to the provider goes through it.
    ///   - store: Where credentials and the journal are kept durably.
    ///   - presenter: Takes the person to the provider for sign-in.
    ///   - deviceKeys: The device-bound key source for app disconnect (1pass.dev); `nil` when the
    ///     provider offers no disconnect.
    ///   - clock: All waiting (handoff timeout, backoff) happens on it.
    ///   - wallClock: "Now" for token times (`exp`, `iat`, `expires_in`).
    ///   - random: The jitter source of the retry policies.
    public init(
        configuration: SessionConfiguration, transport: any HTTPTransport, store: any CredentialStore, presenter: any HandoffPresenter,
        deviceKeys: (any DeviceKeyProviding)? = nil, clock: C, wallClock: @escaping @Sendable () -> Date,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.configuration = configuration
        self.client = ProviderClient(configuration: configuration.provider, transport: transport, now: wallClock)
        self.verifier = TokenVerifier(
            configuration: configuration.provider,
            keys: JWKSCache(client: client, timeToLive: configuration.keySetTimeToLive),
            skew: configuration.clockSkew, allowMissingKeyID: configuration.allowMissingKeyID,
            requireIDTokenOnRefresh: configuration.requireIDTokenOnRefresh,
            defaultAccessTokenLifetime: configuration.defaultAccessTokenLifetime)
        self.store = store
        self.presenter = presenter
        self.deviceKeys = deviceKeys
        self.clock = clock
        self.wallClock = wallClock
        self.random = AnyRandomNumberGenerator(random)
        self.machine = Machine(configuration: .init(handoffTimeout: configuration.handoffTimeout, refreshLeadTime: configuration.refreshLeadTime))
    }

    // MARK: - Observing

    /// The current stage.
    public var stage: SessionStage { machine.stage }

    /// How many callers are suspended waiting for the refresh in flight.
    public var waitingCallerCount: Int {
        if case .refreshing(let refreshing) = machine.state { return refreshing.waiters.count + queuedCallerCount }
        return queuedCallerCount
    }

    /// How many callers are queued at the gate to join the refresh in flight and not yet fed into
    /// the machine (included in ``waitingCallerCount``).
    nonisolated package var queuedCallerCount: Int {
        gate.withLock { $0.joiners.count }
    }

    /// Who is signed in, while the session holds verified tokens.
    public var identity: SessionIdentity? {
        switch machine.state {
        case .active(let active): active.tokens.identity
        case .refreshing(let refreshing): refreshing.previous?.identity
        default: nil
        }
    }

    /// A stream of everything the session tells the app, starting with the current stage.
    ///
    /// Each subscriber first receives a transition with `from == nil` and reason
    /// ``TransitionReason/current``, then every later event in order. The stream ends when the
    /// subscriber stops iterating.
    public func events() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .unbounded)
        continuation.yield(.transition(SessionTransition(from: nil, to: machine.stage, reason: .current, date: wallClock())))
        nextSubscriber += 1
        let id = nextSubscriber
        subscribers[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(id) }
        }
        return stream
    }

    /// Calls `observer` synchronously, on the session's executor, for every later event, in order.
    ///
    /// Meant for logging, metrics and test recorders that must see events exactly where they happen
    /// relative to the app's own calls. The observer must return quickly and must not call back
    /// into the session.
    public func addObserver(_ observer: @escaping @Sendable (SessionEvent) -> Void) {
        observers.append(observer)
    }

    // MARK: - Signing in

    /// Signs in: hands the person off to the provider, verifies what comes back, and returns once
    /// the session is active.
    ///
    /// The callback arrives either from the presenter or through ``handle(_:)``. Cancelling the
    /// calling task cancels the handoff.
    @discardableResult
    public func signIn() async throws(SessionError) -> SessionIdentity {
        let attempt: SignInAttempt
        do {
            let pkce = try PKCE.generate()
            let state = try RandomToken.generate(byteCount: 32)
            let nonce = try RandomToken.generate(byteCount: 32)
            attempt = SignInAttempt(
                authorizationURL: client.authorizationURL(codeChallenge: pkce.challenge, state: state, nonce: nonce),
                state: state, nonce: nonce, codeVerifier: pkce.verifier, codeChallenge: pkce.challenge)
        } catch {
            throw .provider(.invalidResponse("the system random source failed"))
        }
        switch await suspend({ id, waiter in machine.signIn(attempt, id: id, waiter: waiter) }) {
        case .tokens(let tokens): return tokens.identity
        case .done: throw .cancelled
        case .failed(let error): throw error
        }
    }

    /// Offers a URL the app was opened with. Returns `true` when it was the callback the pending
    /// handoff waits for (same scheme, host and path as the redirect URI), `false` otherwise: an
    /// unrelated URL leaves the handoff waiting.
    @discardableResult
    public func handle(_ url: URL) -> Bool {
        guard configuration.provider.isCallback(url) else { return false }
        return consumeCallback(url, redirectURI: nil)
    }

    /// Feeds a callback that matched the configured redirect URI, or (`redirectURI`) the one a
    /// presenter rendered the attempt for.
    private func consumeCallback(_ url: URL, redirectURI: URL?) -> Bool {
        admitJoiners()
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        let fields = FormEncoding.decode(query)
        let callback = CallbackParameters(
            code: fields["code"], state: fields["state"], error: fields["error"], issuer: fields["iss"], redirectURI: redirectURI)
        let (consumed, actions) = machine.callbackReceived(callback, expectedIssuer: configuration.provider.issuer)
        perform(actions)
        return consumed
    }

    // MARK: - Tokens

    /// A valid access token: the current one, or the result of a refresh when it is due within the
    /// lead time. Concurrent callers share one refresh; a refreshed token is handed out only after
    /// its id_token was verified.
    ///
    /// A fresh token is returned on the caller's own executor, without a trip through the actor;
    /// a caller joining a refresh in flight is queued without entering the actor and resumed on its
    /// own executor; anything else (a refresh due, no session, sign-out) goes through the machine.
    nonisolated(nonsending) public func validAccessToken() async throws(SessionError) -> AccessToken {
        if !gateIsJoining.load(ordering: .relaxed) {
            switch gate.withLock({ $0.route }) {
            case .fresh(let token, let dueAt):
                if wallClock() < dueAt { return token }
                return try await waitForTokens(force: false)
            case .join:
                break
            case .machine:
                return try await waitForTokens(force: false)
            }
        }
        // Join the refresh in flight: queue at the gate, without entering the actor. The session
        // feeds the queue into the machine at its next step. Cancelling the calling task removes
        // only this caller, from the gate or from the machine, wherever it is. (Written out here
        // rather than in a function of its own: one frame less keeps a suspended caller within
        // its task's first allocation block.)
        let id = nextWaiterID()
        let outcome = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<TokenOutcome, Never>) in
                let queued: Bool? = gate.withLock { gate in
                    Task.isCancelled ? nil : gate.enqueue(id, .accessToken(continuation))
                }
                switch queued {
                case nil: continuation.resume(returning: TokenOutcome.cancelled)
                case true?:
                    // The refresh ended between the caller's look at the gate and its queuing.
                    Task { await self.admitJoiners() }
                case false?: break
                }
            }
        } onCancel: {
            if let waiter = gate.withLock({ $0.remove(id) }) {
                waiter.resume(with: .failed(.cancelled))
            } else {
                Task { await self.waiterCancelled(id) }
            }
        }
        return try outcome.result.get()
    }

    /// Refreshes now, whatever the expiry (joining a refresh already in flight).
    @discardableResult
    public func refresh() async throws(SessionError) -> AccessToken {
        try await waitForTokens(force: true)
    }

    /// At cold launch: resumes a journaled sign-out or deletion, or refreshes and verifies the
    /// stored session. Returns the stage reached.
    @discardableResult
    public func restore() async throws(SessionError) -> SessionStage {
        let record: CredentialRecord
        do {
            record = try await store.load()
        } catch {
            throw .storage(error)
        }
        if !record.pendingRevocations.isEmpty { startBackgroundRevoker() }
        let plan: RestorePlan = record.pendingOperation.map(RestorePlan.pending) ?? (record.session == nil ? .nothing : .session)
        let result = await suspend { id, waiter in machine.restoreLoaded(plan, id: id, waiter: waiter) }
        if case .failed(let error) = result { throw error }
        return machine.stage
    }

    // MARK: - Ending

    /// Signs out, server first: revokes the refresh token at the provider (retrying transient
    /// failures), then wipes local credentials. No token is handed out meanwhile. The intent is
    /// journaled, so a relaunch resumes it in ``restore()``.
    public func signOut() async throws(SessionError) {
        if case .failed(let error) = await suspend({ id, waiter in machine.signOut(id: id, waiter: waiter) }) {
            throw error
        }
    }

    /// Deletes the account's connection, server first: disconnects the app at the provider, then
    /// revokes, wipes credentials, resets the device credential and emits
    /// ``SessionEvent/deleteUserData(subject:)``. A 401/403 keeps the credentials and throws
    /// ``SessionError/accountDeletionRefused(status:)``.
    public func deleteAccount() async throws(SessionError) {
        if case .failed(let error) = await suspend({ id, waiter in machine.deleteAccount(id: id, waiter: waiter) }) {
            throw error
        }
    }

    // MARK: - Running the machine

    private func waitForTokens(force: Bool) async throws(SessionError) -> AccessToken {
        let now = wallClock()
        return try await suspend(cancelled: TokenOutcome.cancelled, as: SessionWaiter.accessToken) { id, waiter in
            machine.tokenRequested(id: id, waiter: waiter, now: now, force: force)
        }.result.get()
    }

    private func suspend(_ feed: (WaiterID, Waiter) -> [Machine.Action]) async -> WaiterResult<VerifiedTokens> {
        await suspend(cancelled: .failed(.cancelled), as: SessionWaiter.outcome, feed)
    }

    /// Suspends the caller as a waiter the machine resumes exactly once; cancelling the calling
    /// task removes only this waiter.
    private func suspend<Value: Sendable>(
        cancelled: Value, as kind: (UnsafeContinuation<Value, Never>) -> Waiter, _ feed: (WaiterID, Waiter) -> [Machine.Action]
    ) async -> Value {
        let id = nextWaiterID()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Value, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: cancelled)
                    return
                }
                admitJoiners()
                perform(feed(id, kind(continuation)))
            }
        } onCancel: {
            Task { await self.waiterCancelled(id) }
        }
    }

    private nonisolated func nextWaiterID() -> WaiterID {
        WaiterID(raw: lastWaiterID.add(1, ordering: .relaxed).newValue)
    }

    /// Feeds the callers queued at the gate into the machine, in arrival order. Runs before every
    /// other event, so the machine has seen each caller that queued before it.
    func admitJoiners() {
        let joiners = gate.withLock { $0.takeJoiners() }
        guard !joiners.isEmpty else { return }
        admit(joiners)
    }

    private func admit(_ joiners: WaiterList<Waiter>) {
        perform(machine.queuedTokenRequests(joiners, now: wallClock()))
    }

    /// Runs one machine step on an event: the queued callers first, then the event's actions.
    func step(_ event: (inout Machine) -> [Machine.Action]) {
        admitJoiners()
        perform(event(&machine))
    }

    private func waiterCancelled(_ id: WaiterID) {
        step { $0.waiterCancelled(id) }
    }

    private func timerFired(_ id: TimerID) {
        timers[id] = nil
        step { $0.timerFired(id) }
    }

    private func removeSubscriber(_ id: UInt64) {
        subscribers[id] = nil
    }

    func publish(_ event: SessionEvent) {
        for observer in observers { observer(event) }
        for continuation in subscribers.values { continuation.yield(event) }
    }

    func perform(_ actions: [Machine.Action]) {
        // A step without actions (one more caller joining a refresh, a stale result) leaves the stage as it was.
        guard !actions.isEmpty else { return }
        // Before any event is published or caller resumed: nobody may see the new stage and still
        // be handed the old token.
        let mode: TokenGate<Waiter>.Mode =
            switch machine.handout {
            case .fresh(let tokens, let dueAt)?:
                .fresh(AccessToken(secret: tokens.accessToken, expiresAt: tokens.accessTokenExpiresAt), dueAt: dueAt)
            case .joinRefresh?: .joining
            case nil: .closed
            }
        // Callers that queued to join a refresh this step ended are answered by the new stage.
        let leftOver = gate.withLock { gate in
            let leftOver = gate.update(mode)
            gateIsJoining.store(gate.isJoining, ordering: .relaxed)
            return leftOver
        }
        defer { if !leftOver.isEmpty { admit(leftOver) } }
        for action in actions {
            switch action {
            case .present(let attempt, let generation):
                let client = self.client
                let redirects = HandoffRedirects { redirectURI in
                    client.authorizationURL(
                        codeChallenge: attempt.codeChallenge, state: attempt.state, nonce: attempt.nonce, redirectURI: redirectURI)
                }
                let request = HandoffRequest(
                    authorizationURL: attempt.authorizationURL, redirectURI: configuration.provider.redirectURI, redirects: redirects)
                presenterTask = Task { await self.runPresenter(request, redirects: redirects, generation: generation) }
            case .cancelPresenter:
                presenterTask?.cancel()
                presenterTask = nil
            case .startTimer(let id, let duration):
                let clock = self.clock
                timers[id] = Task {
                    do {
                        try await clock.sleep(for: duration)
                    } catch {
                        return
                    }
                    self.timerFired(id)
                }
            case .cancelTimer(let id):
                timers.removeValue(forKey: id)?.cancel()
            case .exchangeCode(let code, let attempt, let generation):
                Task { await self.runExchange(code: Secret(code), attempt: attempt, generation: generation) }
            case .refresh(let generation, let restoring):
                let previous = restoring ? nil : refreshBase()
                refreshTask = Task { await self.runRefresh(generation: generation, previous: previous) }
            case .cancelRefresh:
                // The provider may already have rotated the token; the sign-out revokes what the store holds.
                refreshTask?.cancel()
                refreshTask = nil
            case .revoke(let generation, _):
                Task { await self.runRevoke(generation: generation) }
            case .disconnect(let generation, _):
                Task { await self.runDisconnect(generation: generation) }
            case .deferRevocation:
                Task { await self.deferCurrentRevocation() }
            case .discardLateTokens(let tokens):
                Task { await self.discardLate(tokens) }
            case .resume(let waiters, let result):
                // Made once: every caller waiting for a token shares it.
                let token = TokenOutcome(result)
                for waiter in waiters { waiter.resume(with: result, token: token) }
            case .transition(let from, let to, let reason):
                publish(.transition(SessionTransition(from: from, to: to, reason: reason, date: wallClock())))
            case .emit(let event):
                publish(event)
            }
        }
    }

    private func refreshBase() -> VerifiedTokens? {
        if case .refreshing(let refreshing) = machine.state { return refreshing.previous }
        return nil
    }

    private func runPresenter(_ request: HandoffRequest, redirects: HandoffRedirects, generation: UInt64) async {
        do {
            guard let callback = try await presenter.present(request) else {
                // App-to-app: the answer arrives through handle(_:).
                return
            }
            // A redirect URI the presenter chose comes first: the exchange must name that one.
            let consumed =
                if let redirectURI = redirects.redirectURI(matching: callback) {
                    consumeCallback(callback, redirectURI: redirectURI)
                } else if configuration.provider.isCallback(callback) {
                    consumeCallback(callback, redirectURI: nil)
                } else {
                    false
                }
            if !consumed {
                step { $0.presenterFailed(.presentationFailed("the callback does not match the redirect URI"), generation: generation) }
            }
        } catch {
            step { $0.presenterFailed(error, generation: generation) }
        }
    }
}

/// Type-erases a random source so the actor can hold any generator.
struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable

    init(_ base: some RandomNumberGenerator & Sendable) {
        self.base = base
    }

    mutating func next() -> UInt64 {
        base.next()
    }
}
