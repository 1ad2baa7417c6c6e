public import Foundation
package import SessionKitCore
import SessionKitJOSE
import Synchronization

/// The life of one signed-in session: sign-in, verification, fresh tokens, sign-out, deletion.
///
/// `Session` is a thin shell around a pure state machine (`SessionStateMachine`), in one isolation
/// domain: one lock guards the machine and everything beside it. Each public call feeds the
/// machine one input under that lock; one runner performs the actions it returns, in order, after
/// the lock is released. Network and storage work runs in children of the session's one task owner
/// and reports back as inputs, decided step by step by small procedures (`RefreshProcedure`,
/// `SignOutProcedure`, `DisconnectProcedure`); ``shutdown()`` ends all of it. All waiting happens on
/// the injected `clock`, all token-time judgements use the injected wall clock, so a test can
/// drive a whole session in simulated time.
///
/// ```swift
/// let session = Session(configuration: configuration, transport: URLSessionTransport(clock: ContinuousClock()),
///                       store: FileCredentialStore(directory: url), presenter: presenter,
///                       clock: ContinuousClock())
/// try await session.restore()
/// let token = try await session.validAccessToken()
/// ```
public final class Session: Sendable {
    /// Unchecked continuations: the machine resumes every waiter exactly once (its script tests
    /// check that for every stage and input), and a checked one costs an allocation per caller.
    typealias Waiter = SessionWaiter
    typealias Machine = SessionStateMachine<VerifiedTokens, Waiter>

    /// How this session behaves.
    public let configuration: SessionConfiguration
    let client: ProviderClient
    /// The same chain without any DPoP middleware, for the revocation queue: a queued refresh
    /// token belongs to an ended session, whose key is gone, and is never presented with the
    /// proof of another session's key. RFC 7009 needs no proof; the token and the client's
    /// authentication are what the provider judges.
    let proofFreeClient: ProviderClient
    /// The session's DPoP key, nonces and policy (RFC 9449).
    let dpop: SessionDPoP
    /// The app's middleware and the client authentication's, around which a sign-in's client puts
    /// the sign-in key's DPoP middleware.
    let outerMiddleware: [any RequestMiddleware]
    let innerMiddleware: [any RequestMiddleware]
    /// The DPoP middleware the app's own requests are signed with (``authorize(_:)``): one the app
    /// put in the chain itself, else the session's own (none while the policy is off).
    let requestDPoP: DPoPMiddleware?
    /// The DPoP key of the device sign-in under way; its own lock, taken inside the machine's.
    let deviceSignInKeySlot = Locked<DPoPSignInKey?>(nil)
    let verifier: TokenVerifier
    let store: any CredentialStore
    let presenter: any HandoffPresenter
    let deviceKeys: (any DeviceKeyProviding)?
    let clock: any Clock<Duration>
    let wallClock: @Sendable () -> Date
    /// The provider's clock as its token responses tell it: the time DPoP proofs and id_token
    /// checks are judged on, bounded by ``SessionConfiguration/serverClockBound``. Read
    /// ``ServerClock/latestEstimate`` to see how far the device's clock is off.
    public let serverClock: ServerClock
    /// Whether ``wallClock`` is the system's: the fast path then reads the cheaper
    /// ``SystemWallClock/approximateNow()``.
    let readsSystemWallClock: Bool

    /// The machine and everything the shell keeps beside it, behind one lock: the session's one
    /// isolation domain. Every input is a step under this lock that returns actions; the runner
    /// (``Session+Running``) performs them, in order, after the lock is released.
    let core: Locked<Core>
    /// Owns every task the session starts; ``shutdown()`` ends them all.
    let owner: TaskOwner
    /// Notified after every step of the machine, for the test kit's waits.
    package let changes = SessionChangeFeed()
    /// The last waiter id handed out; ids follow arrival order.
    private let lastWaiterID = Atomic<UInt64>(0)

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - configuration: The provider and the session's policies.
    ///   - transport: Every request to the provider goes through it.
    ///   - store: Where credentials and the journal are kept durably.
    ///   - presenter: Takes the person to the provider for sign-in.
    ///   - deviceKeys: The device-bound key source for app disconnect (1pass.dev). Left out, it is
    ///     made from `transport` and `store` whenever the profile has device-key exchange.
    ///   - clock: All waiting (handoff timeout, backoff) happens on it.
    ///   - wallClock: "Now" for token times (`exp`, `iat`, `expires_in`); `nil` (the default) for
    ///     the system's clock.
    ///   - random: The jitter source of the retry policies.
    public init(
        configuration: SessionConfiguration, transport: any HTTPTransport, store: any CredentialStore, presenter: any HandoffPresenter,
        deviceKeys: DeviceKeySource = .automatic, clock: some Clock<Duration>, wallClock: (@Sendable () -> Date)? = nil,
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator()
    ) {
        self.readsSystemWallClock = wallClock == nil
        let wallClock = wallClock ?? SystemWallClock.now
        let owner = TaskOwner(hosted: configuration.runsInHostTask)
        self.owner = owner
        self.configuration = configuration
        let serverClock = ServerClock(bound: configuration.serverClockBound)
        self.serverClock = serverClock
        // Proofs are dated on the provider's clock, as its token responses tell it.
        let dpop = SessionDPoP(
            holder: DPoPKeyHolder(), nonces: DPoPNonceCache(), requirement: configuration.dpop.requirement(for: configuration.provider),
            keyStore: configuration.dpopKeyStore, now: { serverClock.serverTime(at: wallClock()) })
        self.dpop = dpop
        // A DPoP middleware the app put in the chain itself reads the provider's clock too; the
        // retry of a proof refused for its time wraps everything, the clock's reading sits inside
        // every DPoP middleware (so it sees the answers they turn into errors).
        self.outerMiddleware =
            [ServerClockRetry(serverClock: serverClock)]
            + configuration.requestMiddleware.map { ($0 as? DPoPMiddleware)?.readingServerTime(from: serverClock) ?? $0 }
        self.innerMiddleware =
            [ServerClockRecorder(serverClock: serverClock, now: wallClock)]
            + Self.clientAuthenticationMiddleware(configuration, now: wallClock)
        let sessionDPoP = dpop.middleware(dpop.holder)
        self.requestDPoP =
            outerMiddleware.lazy.compactMap { $0 as? DPoPMiddleware }.first ?? (dpop.requirement == nil ? nil : sessionDPoP)
        self.client = ProviderClient(
            configuration: configuration.provider, transport: transport,
            middleware: outerMiddleware + [sessionDPoP] + innerMiddleware, now: wallClock)
        self.proofFreeClient = ProviderClient(
            configuration: configuration.provider, transport: transport,
            middleware: outerMiddleware.filter { !($0 is DPoPMiddleware) } + innerMiddleware, now: wallClock)
        self.verifier = TokenVerifier(
            configuration: configuration.provider,
            keys: JWKSCache(client: client, timeToLive: configuration.keySetTimeToLive, owner: owner),
            skew: configuration.clockSkew, allowMissingKeyID: configuration.allowMissingKeyID || configuration.provider.allowsMissingKeyID,
            requireIDTokenOnRefresh: configuration.requireIDTokenOnRefresh,
            defaultAccessTokenLifetime: configuration.defaultAccessTokenLifetime, serverClock: serverClock)
        self.store = store
        self.presenter = presenter
        self.deviceKeys =
            switch deviceKeys {
            case .custom(let source): source
            case .none: nil
            case .automatic:
                if let endpoint = configuration.provider.deviceKeyExchangeEndpoint, let devices = store as? any DeviceCredentialStore {
                    DeviceKeyManager(
                        endpoint: endpoint, platform: configuration.devicePlatform, transport: transport, store: devices, now: wallClock,
                        owner: owner)
                } else {
                    nil
                }
            }
        self.clock = clock
        self.wallClock = wallClock
        self.core = Locked(
            Core(
                machine: Machine(
                    configuration: .init(
                        handoffTimeout: configuration.handoffTimeout, timing: configuration.refreshTiming,
                        providerLogoutTimeout: configuration.providerLogoutTimeout)),
                random: AnyRandomNumberGenerator(random)))
        Self.forward(owner, to: changes)
    }

    /// Every child's start and end is a change of the session too (``liveTaskCount``), for the
    /// test kit's waits.
    private static func forward(_ owner: TaskOwner, to changes: SessionChangeFeed) {
        owner.changes.add { [weak changes] in changes?.notify() }
        owner.changes.arm()
    }

    deinit {
        // Nobody holds the session any more, so nobody waits on it: its children (none of which
        // holds it, or it would not be freed) are cancelled.
        owner.abandon()
    }

    /// Creates a session with the defaults an app needs: real HTTP (`URLSessionTransport`), the
    /// continuous clock and the system's wall clock, the platform's secure store unless `store` is
    /// given, and a device-key manager whenever the provider profile has device-key exchange, so
    /// ``deleteAccount()`` works on the reference profile with no extra wiring.
    ///
    /// The default store is the Keychain on Apple platforms (`KeychainCredentialStore`,
    /// `AfterFirstUnlockThisDeviceOnly`); elsewhere the desktop keyring (Secret Service, libsecret
    /// loaded at run time) whenever one answers, else a ``FileCredentialStore`` under
    /// `$XDG_DATA_HOME/sessionkit/<client id>`. That fallback is never silent: ``storeFallbackReason``
    /// says why, and ``restore()`` publishes ``SessionEvent/credentialStoreFallback(reason:)``.
    ///
    /// `configure` adjusts the configuration's policies before the session is made; it runs once,
    /// at once, and is `@Sendable` so a main-actor caller can pass it to the session's initialiser.
    ///
    /// ```swift
    /// let session = Session(provider: try .onePass(clientID: "app", redirectURI: redirect), presenter: presenter) { configuration in
    ///     configuration.endsProviderSessionAtSignOut = true
    /// }
    /// ```
    public convenience init(
        provider: ProviderConfiguration, presenter: any HandoffPresenter, store: (any CredentialStore)? = nil,
        configure: @Sendable (inout SessionConfiguration) -> Void = { _ in }
    ) {
        var configuration = SessionConfiguration(provider: provider)
        #if canImport(UIKit) && !os(watchOS)
            configuration.backgroundTasks = SystemBackgroundTasks()
            configuration.protectedData = SystemProtectedData()
        #endif
        configure(&configuration)
        let clock = ContinuousClock()
        self.init(
            configuration: configuration, transport: URLSessionTransport(clock: clock), store: store ?? Self.platformStore(for: provider),
            presenter: presenter, clock: clock)
    }

    /// The platform's secure store for `provider`'s client.
    static func platformStore(for provider: ProviderConfiguration) -> any CredentialStore {
        #if canImport(Security)
            return KeychainCredentialStore(service: "sessionkit.\(provider.clientID)")
        #else
            let environment = ProcessInfo.processInfo.environment
            let base =
                environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
                ?? URL(fileURLWithPath: environment["HOME"] ?? NSTemporaryDirectory()).appendingPathComponent(".local/share")
            let name = provider.clientID.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "." ? $0 : "_" }
            return PlatformCredentialStore(
                service: "sessionkit.\(provider.clientID)",
                directory: base.appendingPathComponent("sessionkit").appendingPathComponent(String(name)))
        #endif
    }

    // MARK: - Observing

    /// The current stage.
    public var stage: SessionStage { core.withLock { $0.machine.stage } }

    /// How many callers are suspended waiting for the refresh in flight.
    package var waitingCallerCount: Int { core.withLock { $0.machine.waitingCallerCount } }

    /// Who is signed in, while the session holds verified tokens.
    public var identity: SessionIdentity? { core.withLock { $0.machine.currentTokens?.identity } }

    /// How many tasks of this session are running (background refresh, timers, presentation,
    /// revocation, device polling, key fetches). Zero once the session is idle or shut down.
    package var liveTaskCount: Int { owner.liveChildren }

    /// How many callers wait in the machine: for a sign-in, a refresh, a sign-out or a deletion.
    package var heldCallerCount: Int { core.withLock { $0.machine.heldCallerCount } }

    /// Work the machine still has under way, as short phrases (none while signed out or active
    /// with nothing in flight): a handoff, a refresh or its retry timer, a server-first operation,
    /// the background revocation queue.
    package var workInFlight: [String] {
        core.withLock { core in
            var work: [String] = []
            switch core.machine.stage {
            case .handoff: work.append("a handoff to the provider")
            case .verifying: work.append("a verification of the provider's answer")
            case .refreshing: work.append("a refresh")
            case .revoking: work.append("a sign-out waiting for the provider")
            case .disconnecting: work.append("an account deletion waiting for the provider")
            case .signedOut, .active: break
            }
            if core.machine.revocationQueue.phase != .idle { work.append("a revocation of an older session's token") }
            return work
        }
    }

    /// How many cancellations the machine sent (a timer, a presentation, a refresh) have not yet
    /// reached their work; a test moves the clock once this is zero, so no cancelled timer's
    /// sleep is still on it.
    package var cancellationsInFlight: Int { owner.cancellationsInFlight }

    /// A stream of everything the session tells the app, starting with the current stage.
    ///
    /// Each subscriber first receives a transition with `from == nil` and reason
    /// ``TransitionReason/Code/current``, then every later event in order. The stream ends when the
    /// subscriber stops iterating.
    public func events() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .unbounded)
        let now = wallClock()
        let id: UInt64? = core.withLock { core in
            guard !core.isShutDown else { return nil }
            // The replay and the registration are one step: every later event reaches this
            // subscriber, and none from before.
            continuation.yield(.transition(SessionTransition(from: nil, to: core.machine.stage, reason: .current, date: now)))
            return core.addSubscriber(continuation)
        }
        guard let id else {
            continuation.yield(.transition(SessionTransition(from: nil, to: stage, reason: .current, date: now)))
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.core.withLock { $0.removeSubscriber(id) }
        }
        return stream
    }

    /// Calls `observer` synchronously, in order, for every later event, on the thread that runs
    /// the session's actions (never two at once).
    ///
    /// Meant for logging, metrics and test recorders that must see events exactly where they happen
    /// relative to the app's own calls. The observer must return quickly and must not call back
    /// into the session.
    public func addObserver(_ observer: @escaping @Sendable (SessionEvent) -> Void) {
        _ = core.withLock { $0.addObserver(observer) }
    }

    /// Like ``addObserver(_:)``, for an observer that goes away before the session: returns the
    /// id ``removeObserver(_:)`` takes.
    package func observe(_ observer: @escaping @Sendable (SessionEvent) -> Void) -> UInt64 {
        core.withLock { $0.addObserver(observer) }
    }

    /// Stops calling the observer ``observe(_:)`` returned `id` for.
    package func removeObserver(_ id: UInt64) {
        core.withLock { $0.removeObserver(id) }
    }

    // MARK: - Signing in

    /// Signs in: hands the person off to the provider, verifies what comes back, and returns once
    /// the session is active.
    ///
    /// The callback arrives either from the presenter or through ``handle(_:)``. Cancelling the
    /// calling task cancels the handoff. The request carries the configuration's
    /// ``SessionConfiguration/authorizationOptions``.
    ///
    /// From a guest session (``startGuestSession()``) the sign-in goes through the same stages
    /// while the guest's key is still handed out; once the signed-in identity is verified the guest
    /// credential is reset (and ``SessionEvent/anonymousUserPromoted(subject:)`` says so when the
    /// id_token carries `previously_anonymous`); a sign-in that fails returns to the guest session.
    @discardableResult
    public func signIn() async throws(SessionError) -> SessionIdentity {
        try await signIn(options: .empty)
    }

    /// Signs in with request options over the configuration's defaults (``AuthorizationRequestOptions/overriding(with:)``):
    /// a step-up (`prompt=login`, `max_age`, essential `acr`), a hint, resources. The returned
    /// id_token must satisfy what they ask (`missing_auth_time`, `auth_time_too_old`,
    /// `acr_mismatch`), or the sign-in fails with ``SessionError/verificationFailed(_:)``.
    ///
    /// - Throws: ``SessionError/invalidRequestOptions(_:)`` before anything is sent when the merged
    ///   options break a rule; otherwise as ``signIn()``.
    @discardableResult
    public func signIn(options: AuthorizationRequestOptions) async throws(SessionError) -> SessionIdentity {
        let attempt = try makeSignInAttempt(options: configuration.authorizationOptions.overriding(with: options))
        let result = await suspend { machine, id, waiter in machine.signIn(attempt, id: id, waiter: waiter) }
        if case .tokens(let tokens) = result { return tokens.identity }
        // Cancelled, timed out, refused before the exchange, or never admitted: a key made for
        // this sign-in and kept by no session is not left in the key store.
        await discardSignInKey(attempt.dpopKey)
        switch result {
        case .tokens(let tokens): return tokens.identity
        case .done, .restored: throw .cancelled
        case .failed(let error): throw error
        }
    }

    /// Offers a URL the app was opened with. Returns `true` when it was the callback the pending
    /// handoff waits for (same scheme, host and path as the redirect URI), `false` otherwise: an
    /// unrelated URL leaves the handoff waiting.
    ///
    /// At sign-out, the provider's return from its end-session page comes the same way, matched
    /// against the post-logout redirect URI and the `state` sent.
    @discardableResult
    public func handle(_ url: URL) -> Bool {
        if configuration.provider.isCallback(url), consumeCallback(url, redirectURI: nil) { return true }
        return consumeEndSessionReturn(url, redirectURI: nil)
    }

    // MARK: - Tokens

    /// A valid access token: the current one, or the result of a refresh when it is due within the
    /// lead time ("current or fresh"). Concurrent callers share one refresh; a refreshed token is
    /// handed out only after its id_token was verified. While a refresh that failed in a way that
    /// may pass backs off, the current token is handed out until it really expires.
    ///
    /// A fresh token is returned on the caller's own executor after one read under the session's
    /// lock; a caller joining a refresh in flight waits in the machine, which it reaches under the
    /// same lock, and is resumed on its own executor; anything else (a refresh due, no session,
    /// sign-out) is one step of the machine.
    nonisolated(nonsending) public func validAccessToken() async throws(SessionError) -> AccessToken {
        switch core.withLock({ $0.machine.handout }) {
        case .fresh(let tokens, let dueAt)?:
            // A due time a lead time before expiry can be judged on the cheaper approximate
            // clock (a few milliseconds behind at worst); one at the expiry itself (a refresh
            // backing off, a session without a refresh token) is judged exactly.
            let leadTime = tokens.accessTokenExpiresAt.timeIntervalSinceReferenceDate - dueAt.timeIntervalSinceReferenceDate
            let now = readsSystemWallClock && leadTime > 1 ? SystemWallClock.approximateNow() : wallClock()
            if now < dueAt { return tokens.token }
            return try await waitForTokens(force: false)
        case .joinRefresh?:
            break
        case nil:
            return try await waitForTokens(force: false)
        }
        // Join the refresh in flight. Written out here rather than in a function of its own: one
        // frame less keeps a suspended caller within its task's first allocation block.
        let id = nextWaiterID()
        let now = wallClock()
        let answer = await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<TokenAnswer, Never>) in
                // Under the lock, so a cancellation either is seen here or finds the caller waiting.
                let joined = core.withLock { core in
                    Task.isCancelled ? nil : core.machine.joinRefresh(id: id, waiter: .accessToken(continuation), now: now)
                }
                switch joined {
                case true?: changes.notify()
                case false?: continuation.resume(returning: .refreshEnded)
                case nil: continuation.resume(returning: .cancelledFirst)
                }
            }
        } onCancel: {
            waiterCancelled(id)
        }
        return try await token(from: answer)
    }

    /// A token newer than the one held when it was called, or the reason there is none.
    ///
    /// Refreshes now, whatever the expiry; if callers already wait on a refresh in flight (or one
    /// backing off), it joins that one. It never hands back the token held before: a failure
    /// that may pass throws a transient error once the retry policy gives up, a refusal that keeps
    /// the session (403, 404) throws a refused one, and a rejected refresh token ends the session
    /// and throws ``SessionError/refreshTokenRejected``. Use it when the app's own API refused the
    /// current token:
    ///
    /// ```swift
    /// var token = try await session.validAccessToken()
    /// var response = try await api.send(request, bearer: token)
    /// if response.status == 401 {
    ///     // The API refused this token before its expiry: ask for a newer one, once.
    ///     token = try await session.refresh()
    ///     response = try await api.send(request, bearer: token)
    /// }
    /// ```
    @discardableResult
    public func refresh() async throws(SessionError) -> AccessToken {
        try await waitForTokens(force: true)
    }

    /// At cold launch: signs in from the stored, verified session without the network
    /// (offline-first), or resumes a journaled sign-out or deletion. It never waits for the
    /// network: it returns at once with the stage it restored into (`active`, `refreshing` for a
    /// due token, `revoking` or `disconnecting` for a journaled operation, `signedOut`). What
    /// happens next runs in the background and is told through ``events()``: a due access token
    /// is refreshed (while that fails in a way that may pass, the person stays signed in and
    /// ``validAccessToken()`` throws a transient error); a journaled sign-out or deletion retries
    /// until the provider confirms, then moves to `signedOut`.
    ///
    /// A session written for another issuer or client is left alone and not restored
    /// (``SessionError/storedSessionForeign(_:)``). So is a session whose DPoP key is gone or is
    /// another key (``SessionError/dpopKeyUnavailable(_:)``, whose ``DPoPKeyLoss`` names the
    /// account for the next sign-in's hint): no request is sent with another key.
    @discardableResult
    public func restore() async throws(SessionError) -> SessionStage {
        await reportStoreFallback()
        let record = try await loadAtLaunch()
        if !record.pendingRevocations.isEmpty { revocationsQueued() }
        let verifier = self.verifier
        var plan = RestorePlan(
            record: record, issuer: configuration.provider.issuer, clientID: configuration.provider.clientID, tokens: verifier.restored)
        // A running session (a second restore, a sign-in first) keeps its own key.
        if stage == .signedOut, let session = record.session {
            switch plan {
            case .session, .incompleteSession:
                if let loss = restoreKey(of: session) { plan = .dpopKeyUnavailable(loss) }
            case .pending:
                // The journaled operation presents the refresh token with its key when it is
                // here; without it, with no proof rather than another key's.
                _ = restoreKey(of: session)
            case .nothing, .foreignSession, .dpopKeyUnavailable:
                break
            }
        }
        let now = wallClock()
        let result = await suspend { machine, id, waiter in machine.restoreLoaded(plan, now: now, id: id, waiter: waiter) }
        switch result {
        case .restored(let restored): return restored
        case .failed(let error): throw error
        case .tokens, .done: return stage
        }
    }

    /// Reads the store at launch. A locked device is not "signed out": with a protected-data
    /// source the read waits for the unlock, without one it throws a transient error; both tell
    /// the app.
    private func loadAtLaunch() async throws(SessionError) -> CredentialRecord {
        let protectedData = configuration.protectedData
        if let protectedData, !(await protectedData.isAvailable()) {
            modify { $0.credentialStoreLocked() }
            await protectedData.waitUntilAvailable()
            if Task.isCancelled { throw .cancelled }
        }
        do {
            return try await store.load()
        } catch .locked(let why) {
            modify { $0.credentialStoreLocked() }
            guard let protectedData else { throw .storage(.locked(why)) }
            await protectedData.waitUntilAvailable()
            if Task.isCancelled { throw .cancelled }
            do {
                return try await store.load()
            } catch {
                throw .storage(error)
            }
        } catch {
            throw .storage(error)
        }
    }

    // MARK: - Ending

    /// Signs out, server first: revokes the refresh token at the provider (retrying transient
    /// failures), then wipes local credentials and removes the high-assurance item
    /// (``SessionConfiguration/highAssurance``). No token is handed out meanwhile. The intent is
    /// journaled, so a relaunch resumes it in ``restore()``.
    ///
    /// A guest session has nothing to revoke: its sign-out sends nothing to the provider and wipes
    /// the guest credential, the guest's key and the high-assurance item.
    public func signOut() async throws(SessionError) {
        let result = await suspend { machine, id, waiter in machine.signOut(id: id, waiter: waiter) }
        if case .failed(let error) = result { throw error }
    }

    /// Deletes the account's connection, server first: disconnects the app at the provider, then
    /// revokes, wipes credentials, resets the device credential, removes the high-assurance item and
    /// any guest credential, and emits ``SessionEvent/deleteUserData(subject:)``. A guest session
    /// is ended as by ``signOut()``, then the event is emitted. A 401/403 keeps the credentials and throws
    /// ``SessionError/accountDeletionRefused(status:)``.
    public func deleteAccount() async throws(SessionError) {
        let result = await suspend { machine, id, waiter in machine.deleteAccount(id: id, waiter: waiter) }
        if case .failed(let error) = result { throw error }
    }

    // MARK: - Ending the session's work

    /// Ends the session's work: every caller still waiting is answered with
    /// ``SessionError/shutDown``, every event stream finishes, and every task the session started
    /// (background refresh, revocations, timers, presentation, device polling, key fetches) is
    /// cancelled; returns once all of them have ended. Later calls throw ``SessionError/shutDown``.
    ///
    /// Nothing stored is changed: a journaled sign-out or deletion resumes at the next
    /// ``restore()``, in this process or another.
    public func shutdown() async {
        modify { $0.shutDown() }
        let subscribers = core.withLock { $0.endSubscriptions() }
        // Outside the lock: finishing a stream runs its termination handler, which takes it.
        for subscriber in subscribers { subscriber.finish() }
        await owner.shutdown()
        // The device-key source is the session's, however it was made: its exchanges end too.
        await deviceKeys?.shutdown()
        changes.notify()
    }

    /// Runs the session's work until the session is shut down, for a host that owns its task tree
    /// (a server's service group, a command-line tool's task group), in the style of
    /// swift-service-lifecycle's `Service.run()`.
    ///
    /// With ``SessionConfiguration/runsInHostTask`` set, the session starts no task of its own:
    /// every refresh, timer, presentation and revocation runs as a child of this call, and work
    /// ordered before it starts waits for it. Otherwise the session's own task runs the work and
    /// this call waits beside it. Either way it returns once the session is shut down and every
    /// task it started has ended, and cancelling the calling task shuts the session down, as
    /// ``shutdown()`` does: callers still waiting are answered with ``SessionError/shutDown``.
    ///
    /// ```swift
    /// var configuration = SessionConfiguration(provider: provider)
    /// configuration.runsInHostTask = true
    /// let session = Session(configuration: configuration, transport: transport, store: store,
    ///                       presenter: LoopbackPresenter(), clock: ContinuousClock())
    /// try await withThrowingDiscardingTaskGroup { group in
    ///     group.addTask { await session.run() }
    ///     try await session.restore()
    ///     // ... use the session; cancelling the group shuts it down.
    /// }
    /// ```
    public func run() async {
        // Cancelled: the machine stops before any child sees the cancellation, so every caller
        // is answered with `shutDown`, not with the error of work cut short.
        await owner.run(whenCancelled: { [weak self] in self?.modify { $0.shutDown() } })
        // Shut down or cancelled: answer every caller, finish every stream, end the rest.
        await shutdown()
    }

    // MARK: - Waiting on the machine

    private func waitForTokens(force: Bool) async throws(SessionError) -> AccessToken {
        let now = wallClock()
        let answer = await suspend(cancelled: TokenAnswer.cancelledFirst, as: SessionWaiter.accessToken) { machine, id, waiter in
            machine.tokenRequested(id: id, waiter: waiter, now: now, force: force)
        }
        return try await token(from: answer)
    }

    private func token(from answer: TokenAnswer) async throws(SessionError) -> AccessToken {
        switch answer {
        case .answered(let outcome): return try outcome.result.get()
        case .cancelledFirst: throw .cancelled
        // The refresh ended between the look at the handout and the join: ask the machine.
        case .refreshEnded: return try await waitForTokens(force: false)
        }
    }

    func suspend(_ input: (inout Machine, WaiterID, Waiter) -> [Machine.Action]) async -> WaiterResult<VerifiedTokens> {
        await suspend(cancelled: .failed(.cancelled), as: SessionWaiter.outcome, input)
    }

    /// Suspends the caller as a waiter the machine resumes exactly once, feeding it `input` under
    /// the lock; cancelling the calling task removes only this waiter, resolved under the same
    /// lock (a cancellation that comes first is seen by the step: the caller never registers).
    private func suspend<Value: Sendable>(
        cancelled: Value, as kind: (UnsafeContinuation<Value, Never>) -> Waiter,
        _ input: (inout Machine, WaiterID, Waiter) -> [Machine.Action]
    ) async -> Value {
        let id = nextWaiterID()
        return await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Value, Never>) in
                let registered = modify { machine in
                    Task.isCancelled ? nil : input(&machine, id, kind(continuation))
                }
                if !registered { continuation.resume(returning: cancelled) }
            }
        } onCancel: {
            waiterCancelled(id)
        }
    }

    private func nextWaiterID() -> WaiterID {
        WaiterID(raw: lastWaiterID.add(1, ordering: .relaxed).newValue)
    }
}

extension Session: CustomReflectable {
    /// What `dump` and debuggers show: the stage and the provider, never a token or a sign-in
    /// parameter.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "stage": stage, "issuer": configuration.provider.issuer, "clientID": configuration.provider.clientID,
            ],
            displayStyle: .class)
    }
}
