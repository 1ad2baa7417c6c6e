import Foundation
import SessionKitCore
import SessionKitJOSE

extension Session {
    /// Runs one refresh attempt and tells the machine how it ended.
    func runRefresh(_ order: Machine.RefreshOrder) async {
        let outcome = Self.namingTheAccount(
            await refreshUnderLease(previous: order.previous, forJournaledOperation: false), of: order.previous)
        if case .refreshed(let tokens) = outcome {
            modify { $0.refreshSucceeded(tokens, generation: order.generation) }
            return
        }
        let policy = configuration.refreshRetry
        let now = wallClock()
        let failure = core.withLock { RefreshFailure(outcome, attempt: order.attempt, policy: policy, random: &$0.random) }
        if let failure { modify { $0.refreshFailed(failure, generation: order.generation, now: now) } }
        // Every token a rejected id_token touched is queued for revocation.
        if case .idTokenRejected = outcome { revocationsQueued() }
        // A dead refresh token's record is gone: so is the key it was bound to.
        if case .refreshTokenRejected = outcome { await deleteKey(order.previous?.dpopKey) }
    }

    /// A refresh that ended because the registered client was replaced names the account it
    /// ended, for the next sign-in's `login_hint` (``ClientRegistrationError/signInOptions``).
    static func namingTheAccount(
        _ outcome: RefreshOutcome<VerifiedTokens>, of previous: VerifiedTokens?
    ) -> RefreshOutcome<VerifiedTokens> {
        guard case .refreshTokenRejected(.clientRegistration(var failure)) = outcome, failure.code == .clientReplaced,
            let identity = previous?.identity
        else { return outcome }
        failure.subject = identity.effectiveSubject
        failure.loginHint = identity.claims.profile.preferredUsername ?? identity.claims.profile.email
        return .refreshTokenRejected(.clientRegistration(failure))
    }

    /// Performs a ``RefreshProcedure`` under the store's lease.
    func refreshUnderLease(previous: VerifiedTokens?, forJournaledOperation: Bool) async -> RefreshOutcome<VerifiedTokens> {
        let store = self.store
        let client = self.client
        let verifier = self.verifier
        let wallClock = self.wallClock
        let previousStored = previous?.stored()
        let procedure = RefreshProcedure<VerifiedTokens>(
            previous: previousStored, forJournaledOperation: forJournaledOperation,
            timing: configuration.refreshTiming)
        let result = await leased { () async -> RefreshOutcome<VerifiedTokens> in
            var procedure = procedure
            var step = procedure.start()
            // The session the store holds: the refresh token presented is its own, bound to its key.
            var storedSession: StoredSession?
            while true {
                switch step {
                case .load:
                    let loaded: Result<CredentialRecord, CredentialStoreError>
                    do throws(CredentialStoreError) {
                        let record = try await store.load()
                        storedSession = record.session
                        loaded = .success(record)
                    } catch {
                        loaded = .failure(error)
                    }
                    step = procedure.loaded(loaded, now: wallClock())
                case .adopt(let stored):
                    step = procedure.adoptionChecked(verifier.adopt(stored, sameAccountAs: previousStored), now: wallClock())
                case .requestRefresh(let token), .retryRefreshWithNonce(let token):
                    // A nonce retry is the same request: the middleware signs its proof with the
                    // nonce the refusal gave, which the nonce cache now holds.
                    // A refresh token is presented only with a proof of the key it is bound to (the
                    // one stored beside it), looked up in the key store for every request: without
                    // that key it is not presented at all.
                    if let session = storedSession, let loss = self.restoreKey(of: session, confirmingInKeyStore: true) {
                        step = procedure.keyUnavailable(loss)
                        continue
                    }
                    let answer: Result<TokenResponse, ProviderError>
                    do throws(ProviderError) {
                        answer = .success(try await client.refresh(token))
                    } catch {
                        answer = .failure(error)
                    }
                    step = procedure.refreshAnswered(answer)
                case .verifyWithCachedKeys(let response, let base):
                    step = procedure.verified(
                        await Self.verification(of: response, base: base, now: wallClock(), cachedOnly: true, verifier))
                case .verifyWithFetchedKeys(let response, let base):
                    step = procedure.verified(
                        await Self.verification(of: response, base: base, now: wallClock(), cachedOnly: false, verifier))
                case .save(let record):
                    let saved: Result<Void, CredentialStoreError>
                    do throws(CredentialStoreError) {
                        saved = .success(try await store.save(record))
                    } catch {
                        saved = .failure(error)
                    }
                    step = procedure.saved(saved)
                case .finish(let outcome):
                    return outcome
                }
            }
        }
        switch result {
        case .success(let outcome): return outcome
        case .failure(let error): return .storageFailed(error)
        }
    }

    private static func verification(
        of response: TokenResponse, base: StoredSession, now: Date, cachedOnly: Bool, _ verifier: TokenVerifier
    ) async -> RefreshVerification<VerifiedTokens> {
        do throws(RefreshVerificationError) {
            if cachedOnly {
                return try await verifier.verifyRefreshWithCachedKeys(response, previous: base, now: now).map { .verified($0) }
                    ?? .undecided
            }
            return .verified(try await verifier.verifyRefresh(response, previous: base, now: now))
        } catch {
            switch error {
            case .rejected(let failure): return .rejected(failure)
            case .keysUnavailable(let error): return .keysUnavailable(error)
            }
        }
    }
}
