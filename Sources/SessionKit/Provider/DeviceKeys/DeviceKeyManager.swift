public import Foundation
public import SessionKitCore

/// Obtains and keeps the device-bound key (1pass.dev) that authorizes account-level calls.
///
/// The key comes from the exchange endpoint, authorized by the session's current access token.
/// The device's uuid is created once and stored before the first exchange; the secret the
/// provider hands out on that first exchange is stored durably before the key is returned, in a
/// ``DeviceCredentialStore`` of its own (never beside the refresh token). Storing is idempotent:
/// the credential is written only when it changes, and an app migrating an existing install can
/// inject a store that already holds its uuid and secret.
///
/// However many callers ask at once, one exchange is made and every caller gets its result; one
/// caller's cancellation removes only that caller. A `401 invalid_device_secret` drops the secret
/// and bootstraps the device once more; a `409 device_conflict` becomes
/// ``ExchangeError/deviceConflict``. Nothing is ever logged: the key and the secret are
/// `Secret`s throughout.
public final class DeviceKeyManager: Sendable {
    private let endpoint: URL
    private let platform: String
    private let transport: any HTTPTransport
    private let store: any DeviceCredentialStore
    private let now: @Sendable () -> Date
    private let makeDeviceUUID: @Sendable () -> String
    private let renewalLeeway: Duration
    /// The exchange under way, shared by every caller (it runs as a child of the owner).
    private let exchange: SingleFlight<DeviceKey, ExchangeError>
    /// The manager's own task owner, when it was made on its own rather than by a session.
    private let ownOwner: TaskOwner?

    private struct State {
        var cachedKey: DeviceKey?
        /// Bumped by ``reset()``; an exchange from an older generation writes nothing and is not cached.
        var generation: UInt64 = 0
        /// Ends when the exchange under way has ended, so a reset never races its last write.
        var exchangeDone: Completion?
        /// Ends when the reset under way has removed the credential.
        var resetDone: Completion?
    }

    /// The one lock: the cached key and the generation, read and changed in one step each.
    private let state = Locked(State())

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - endpoint: the exchange endpoint, e.g. `https://api.1pass.dev/api/v1/me/device_keys/exchange`.
    ///   - platform: the `platform` value the provider expects for this app, e.g. `ios`.
    ///   - transport: the HTTP seam.
    ///   - store: where the device uuid and secret live.
    ///   - now: the wall clock that turns `expires_in` into an expiry date.
    ///   - renewalLeeway: a cached key this close to its expiry is replaced by a new exchange.
    ///   - makeDeviceUUID: makes the uuid of a device seen for the first time.
    public convenience init(
        endpoint: URL, platform: String, transport: any HTTPTransport, store: any DeviceCredentialStore,
        now: @escaping @Sendable () -> Date, renewalLeeway: Duration = .seconds(60),
        makeDeviceUUID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.init(
            endpoint: endpoint, platform: platform, transport: transport, store: store, now: now, renewalLeeway: renewalLeeway,
            makeDeviceUUID: makeDeviceUUID, owner: TaskOwner(), ownsOwner: true)
    }

    deinit {
        ownOwner?.abandon()
    }

    /// Ends the manager's work: callers waiting for an exchange get ``ExchangeError/cancelled``,
    /// the exchange under way is cancelled, and a manager made on its own refuses later exchanges
    /// (they get ``ExchangeError/cancelled``). Returns once its tasks have ended. A session's
    /// ``Session/shutdown()`` calls it for the manager it uses, however the manager was made.
    func endWork() async {
        exchange.cancelFlight(cancelled: .cancelled)
        await ownOwner?.shutdown()
    }

    /// How many tasks the manager's own owner runs (none for a manager a session made).
    package var liveTaskCount: Int { ownOwner?.liveChildren ?? 0 }

    /// A manager whose exchanges are children of `owner` (a session's, ended with it, unless
    /// `ownsOwner`).
    init(
        endpoint: URL, platform: String, transport: any HTTPTransport, store: any DeviceCredentialStore,
        now: @escaping @Sendable () -> Date, renewalLeeway: Duration = .seconds(60),
        makeDeviceUUID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }, owner: TaskOwner,
        ownsOwner: Bool = false
    ) {
        self.exchange = SingleFlight(owner: owner)
        self.ownOwner = ownsOwner ? owner : nil
        self.endpoint = endpoint
        self.platform = platform
        self.transport = transport
        self.store = store
        self.now = now
        self.renewalLeeway = renewalLeeway
        self.makeDeviceUUID = makeDeviceUUID
    }

    /// How many exchanges this manager has started (a bootstrap retry counts within its exchange).
    package var exchangeCount: Int { exchange.flightsStarted }

    /// How many callers are waiting for the exchange under way.
    package var waitingCallerCount: Int { exchange.waitingCallerCount }

    /// Notified after every change of the waiting callers, for tests that wait on them.
    package var changes: SessionChangeFeed { exchange.changes }

    /// A device key valid for at least the renewal leeway: the cached one, or one from a new exchange.
    ///
    /// - Parameter accessToken: the session's current access token, sent as Bearer. Callers that
    ///   join an exchange already under way share that exchange's token.
    public func deviceKey(accessToken: Secret) async throws(ExchangeError) -> DeviceKey {
        let (cached, generation) = state.withLock { ($0.cachedKey, $0.generation) }
        if let cached, isFresh(cached) { return cached }
        return try await exchange.run(cancelled: .cancelled) { [self] () async -> Result<DeviceKey, ExchangeError> in
            await runExchangeToTheEnd(accessToken: accessToken, generation: generation)
        }.get()
    }

    /// Forgets the cached key, e.g. after the provider rejected it; the next call exchanges again.
    public func discardCachedKey() {
        state.withLock { $0.cachedKey = nil }
    }

    /// Forgets the device credential, for account deletion: the cached key, and the uuid and
    /// secret in the store. Callers waiting for an exchange under way get ``ExchangeError/cancelled``,
    /// and that exchange writes nothing more.
    public func reset() async throws(ExchangeError) {
        // Removal waits for the exchange it interrupted, and exchanges started meanwhile wait for
        // the removal, so no write of the old device can land after it.
        let done = Completion()
        let (earlierReset, interrupted) = state.withLock { state in
            state.generation += 1
            state.cachedKey = nil
            defer { state.resetDone = done }
            return (state.resetDone, state.exchangeDone)
        }
        exchange.cancelFlight(cancelled: .cancelled)
        defer {
            done.complete()
            state.withLock { state in if state.resetDone === done { state.resetDone = nil } }
        }
        await earlierReset?.wait()
        await interrupted?.wait()
        do throws(CredentialStoreError) {
            try await store.removeDevice()
        } catch {
            throw .storage(error)
        }
    }

    /// One exchange, from the wait for a reset to the cached key.
    private func runExchangeToTheEnd(accessToken: Secret, generation: UInt64) async -> Result<DeviceKey, ExchangeError> {
        let done = Completion()
        let resetDone = state.withLock { state in
            state.exchangeDone = done
            return state.resetDone
        }
        defer {
            done.complete()
            state.withLock { state in if state.exchangeDone === done { state.exchangeDone = nil } }
        }
        if let resetDone { await resetDone.wait() }
        let result = await runExchange(accessToken: accessToken, generation: generation)
        let current = state.withLock { state in
            guard state.generation == generation else { return false }
            if case .success(let key) = result { state.cachedKey = key }
            return true
        }
        return current ? result : .failure(.cancelled)
    }

    /// Whether no ``reset()`` came since the exchange of `generation` started.
    private func isCurrent(_ generation: UInt64) -> Bool {
        state.withLock { $0.generation == generation }
    }

    private func isFresh(_ key: DeviceKey) -> Bool {
        now().addingTimeInterval(Self.seconds(renewalLeeway)) < key.expiresAt
    }

    // MARK: Exchange

    private func runExchange(accessToken: Secret, generation: UInt64) async -> Result<DeviceKey, ExchangeError> {
        let stored: DeviceCredential?
        do {
            stored = try await store.loadDevice()
        } catch {
            return .failure(.storage(error))
        }
        var credential: DeviceCredential
        if let stored {
            credential = stored
        } else {
            credential = DeviceCredential(deviceUUID: makeDeviceUUID())
            // The uuid is kept before it is first sent, so a crash cannot register a second one.
            do { try await save(credential, generation: generation) } catch { return .failure(error) }
        }

        var bootstrappedAgain = false
        while true {
            guard isCurrent(generation) else { return .failure(.cancelled) }
            let request = Self.exchangeRequest(
                endpoint: endpoint, accessToken: accessToken, credential: credential, platform: platform)
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                return .failure(.transport(error))
            }
            switch Self.outcome(of: response) {
            case .issued(let key, let expiresIn, let secret):
                if let secret, secret != credential.deviceSecret {
                    credential.deviceSecret = secret
                    do { try await save(credential, generation: generation) } catch { return .failure(error) }
                }
                return .success(DeviceKey(value: key, expiresAt: now().addingTimeInterval(TimeInterval(expiresIn))))
            case .invalidDeviceSecret:
                guard credential.deviceSecret != nil, !bootstrappedAgain else { return .failure(.invalidDeviceSecret) }
                bootstrappedAgain = true
                credential.deviceSecret = nil
                do { try await save(credential, generation: generation) } catch { return .failure(error) }
            case .failed(let error):
                return .failure(error)
            }
        }
    }

    private func save(_ credential: DeviceCredential, generation: UInt64) async throws(ExchangeError) {
        guard isCurrent(generation) else { throw .cancelled }
        do {
            try await store.saveDevice(credential)
        } catch {
            throw .storage(error)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let parts = duration.components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
