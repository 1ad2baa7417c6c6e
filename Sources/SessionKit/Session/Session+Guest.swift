import Foundation
import SessionKitCore

extension Session {
    // MARK: - Guest sessions

    /// Starts a guest ("anonymous-first") session from `signedOut`: the device bootstraps at the
    /// provider (``ProviderConfiguration/anonymousBootstrap``) with its stored device id and secret,
    /// or as a new device, and the session becomes `active` with an anonymous identity and no
    /// refresh token.
    ///
    /// It is a session like any other: ``validAccessToken()`` hands its key out and renews it when
    /// it is due by bootstrapping again with the stored secret (one request for any number of
    /// callers, on the refresh timing), ``restore()`` brings it back offline-first, ``signIn()``
    /// from it promotes the guest (``SessionEvent/anonymousUserPromoted(subject:)`` when the
    /// id_token says `previously_anonymous`), and ``signOut()`` ends it, sending nothing to the
    /// provider and forgetting the device credential. Concurrent calls share one bootstrap; in a
    /// guest session already, it returns that session's identity.
    ///
    /// The store must keep guest credentials (``GuestCredentialStore``; every store SessionKit
    /// ships does). A stored secret the provider refuses (`401 invalid_device_secret`) is dropped
    /// and the device bootstraps afresh once, which makes a new anonymous user
    /// (``TransitionReason/Code/guestStarted`` says so); a second refusal throws.
    ///
    /// - Throws: ``SessionError/guestBootstrapFailed(_:)`` when no key was issued;
    ///   ``SessionError/alreadySignedIn`` in a signed-in session; ``SessionError/signInInProgress``
    ///   during a sign-in.
    @discardableResult
    public func startGuestSession() async throws(SessionError) -> SessionIdentity {
        let result = await suspend { machine, id, waiter in machine.guestSessionRequested(id: id, waiter: waiter) }
        switch result {
        case .tokens(let tokens): return tokens.identity
        case .done, .restored: throw .cancelled
        case .failed(let error): throw error
        }
    }

    /// The guest bootstrap runner over this session's store, or `nil` when the store keeps no
    /// guest credential.
    private var guestRun: GuestBootstrapRun? {
        guard let guests = store as? any GuestCredentialStore else { return nil }
        return GuestBootstrapRun(
            client: client, store: guests, now: wallClock, deviceName: configuration.guestDeviceName,
            fallbackLifetime: configuration.guestKeyFallbackLifetime, makeDeviceID: { UUID().uuidString.lowercased() })
    }

    /// Whether `generation` is still the machine's (a bootstrap of an older one writes nothing more).
    private func isCurrent(_ generation: UInt64) -> Bool {
        core.withLock { $0.machine.generation == generation }
    }

    /// Runs a guest session's first bootstrap (``SessionStateMachine/Action/bootstrapGuest(generation:)``).
    func runGuestBootstrap(generation: UInt64) async {
        let key: DPoPSignInKey?
        do {
            key = try dpop.makeSignInKey()
        } catch {
            modify { $0.guestBootstrapFailed(error, generation: generation) }
            return
        }
        switch await bootstrapGuestUnderLease(generation: generation, previous: nil, key: key) {
        case .success(let (tokens, startedOver)):
            modify { $0.guestBootstrapped(tokens, startedOver: startedOver, generation: generation) }
        case .failure(let error):
            modify { $0.guestBootstrapFailed(error, generation: generation) }
        }
    }

    /// Renews a guest's key (``SessionStateMachine/Action/renewGuestKey(_:)``): one bootstrap with
    /// the stored secret, told to the machine as a refresh's result.
    func runGuestRenewal(_ order: Machine.RefreshOrder) async {
        switch await bootstrapGuestUnderLease(generation: order.generation, previous: order.previous, key: nil) {
        case .success(let (tokens, _)):
            modify { $0.refreshSucceeded(tokens, generation: order.generation) }
        case .failure(let error):
            let policy = configuration.refreshRetry
            let now = wallClock()
            let failure = core.withLock { RefreshFailure(guestRenewal: error, attempt: order.attempt, policy: policy, random: &$0.random) }
            modify { $0.refreshFailed(failure, generation: order.generation, now: now) }
        }
    }

    /// One bootstrap and the store's guest session record, under the store's lease: processes
    /// sharing the store bootstrap one at a time, and the key is stored before it is handed out.
    private func bootstrapGuestUnderLease(
        generation: UInt64, previous: VerifiedTokens?, key: DPoPSignInKey?
    ) async -> Result<(VerifiedTokens, startedOver: Bool), SessionError> {
        guard let run = guestRun else { return .failure(.unsupported(.guestCredential)) }
        let store = self.store
        let verifier = self.verifier
        let leased = await leased { () async -> Result<(VerifiedTokens, startedOver: Bool), SessionError> in
            let issued = await run.perform { self.isCurrent(generation) }
            let guest: GuestTokens
            switch issued {
            case .success(let value): guest = value
            case .failure(let error): return .failure(.guestBootstrapFailed(error))
            }
            do throws(CredentialStoreError) {
                let record = try await store.load()
                // A first bootstrap's key is new; a renewal keeps the key of the guest it renews.
                let tokens = verifier.acceptGuest(guest, rotation: (record.session?.rotation ?? previous?.rotation ?? 0) + 1)
                    .binding(key?.stored ?? previous?.dpopKey)
                guard let updated = OneAccountPerStore.guestRecord(record, storing: tokens.stored()) else {
                    return .failure(.anotherAccountInStore)
                }
                guard self.isCurrent(generation) else { return .failure(.guestBootstrapFailed(.cancelled)) }
                try await store.save(updated)
                return .success((tokens, guest.startedOver))
            } catch {
                return .failure(.storage(error))
            }
        }
        switch leased {
        case .success(let result):
            if case .success(let (tokens, _)) = result { adopt(key, for: tokens) }
            return result
        case .failure(let error): return .failure(.storage(error))
        }
    }

    /// A sign-in from a guest session was verified: the guest credential goes. Its failure leaves
    /// a device credential the next guest start would present; the signed-in session is unaffected.
    func resetGuestCredential() async {
        guard let guests = store as? any GuestCredentialStore else { return }
        try? await guests.removeGuest()
    }

    /// Ends a guest session locally (``SessionStateMachine/Action/endGuestSession(generation:)``):
    /// the guest credential first, so nothing can bring this anonymous user back, then the guest's
    /// session record, then the high-assurance item. Nothing is sent to the provider.
    func runEndGuestSession(generation: UInt64) async {
        let store = self.store
        let result = await leased { () async -> Result<StoredDPoPKey?, CredentialStoreError> in
            do throws(CredentialStoreError) {
                if let guests = store as? any GuestCredentialStore { try await guests.removeGuest() }
                var record = try await store.load()
                guard record.session?.isGuest == true else { return .success(nil) }
                let key = record.session?.dpopKey
                record.session = nil
                try await store.save(record)
                return .success(key)
            } catch {
                return .failure(error)
            }
        }.flatMap { $0 }
        if case .success(let key) = result {
            await deleteKey(key)
            await removeHighAssuranceItem()
        }
        modify { $0.guestSessionEnded(result.map { _ in () }, generation: generation) }
    }

    /// Removes the high-assurance item (``SessionConfiguration/highAssurance``), at the point a
    /// sign-out or deletion wipes the credentials. The item is bound to its subject and read only
    /// behind the person's confirmation, so a removal that fails does not hold the ending up.
    func removeHighAssuranceItem() async {
        try? await configuration.highAssurance?.remove()
    }
}
