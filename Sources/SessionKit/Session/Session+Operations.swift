import Foundation
import SessionKitJOSE

/// The child tasks that talk to the provider and the store, and report back as machine events.
///
/// Every store change is a read-modify-write under the store's lease, so concurrent operations
/// (in this process or in another one sharing the store) never lose each other's updates.
extension Session {
    // MARK: - Sign-in

    func runExchange(code: Secret, attempt: SignInAttempt, generation: UInt64) async {
        let store = self.store
        do {
            let response: TokenResponse
            do {
                response = try await client.exchangeCode(code, codeVerifier: Secret(attempt.codeVerifier), redirectURI: attempt.redirectURI)
            } catch {
                throw SessionError.provider(error)
            }
            let tokens: VerifiedTokens
            do {
                tokens = try await verifier.verifySignIn(response, nonce: attempt.nonce, now: wallClock())
            } catch {
                // A rejected response's refresh token is valid at the provider: queue it for revocation.
                if let refreshToken = response.refreshToken {
                    try? await Self.update(store) { $0.pendingRevocations.append(refreshToken) }
                    startBackgroundRevoker()
                }
                throw error
            }
            try await Self.update(store) { record in
                if let old = record.session { record.pendingRevocations.append(old.refreshToken) }
                record.session = tokens.stored()
            }
            step { $0.exchangeSucceeded(tokens, generation: generation) }
        } catch {
            step { $0.exchangeFailed(Self.sessionError(error), generation: generation) }
        }
    }

    // MARK: - Refresh

    func runRefresh(generation: UInt64, previous: VerifiedTokens?) async {
        let outcome: Result<VerifiedTokens, SessionError>
        do {
            outcome = .success(try await refreshUnderLease(previous: previous))
        } catch {
            if error is RefreshStorageFailure {
                step { $0.refreshFailed(.permanent(Self.sessionError(error)), generation: generation) }
                return
            }
            outcome = .failure(Self.sessionError(error))
        }
        switch outcome {
        case .success(let tokens):
            step { $0.refreshSucceeded(tokens, generation: generation) }
        case .failure(let error):
            let failure = refreshFailure(for: error)
            step { $0.refreshFailed(failure, generation: generation) }
            if case .verificationFailed = error { startBackgroundRevoker() }
        }
    }

    /// One refresh under the store's lease: adopt another process's newer result, or refresh with
    /// the stored token, keep the rotated token durable as pending, verify, then promote it.
    func refreshUnderLease(previous: VerifiedTokens?, forJournaledOperation: Bool = false) async throws -> VerifiedTokens {
        let store = self.store
        let client = self.client
        let verifier = self.verifier
        let wallClock = self.wallClock
        let lead = SessionStateMachine<VerifiedTokens, Waiter>.seconds(configuration.refreshLeadTime)
        return try await store.withLease { () async throws -> VerifiedTokens in
            var record = try await Self.load(store)
            for _ in 0..<2 {
                guard var stored = record.session, forJournaledOperation || record.pendingOperation == nil else {
                    throw SessionError.notSignedIn
                }
                let now = wallClock()
                if let previous, stored.refreshToken != previous.refreshToken || stored.rotation > previous.rotation,
                    let adopted = verifier.adopt(stored, sameAccountAs: previous.stored()),
                    adopted.accessTokenExpiresAt.timeIntervalSince(now) > lead
                {
                    // Another process sharing the store refreshed first: adopt its verified result.
                    return adopted
                }
                // A pending token left by an interrupted refresh is the newest the provider issued.
                let presented = stored.pendingRefreshToken ?? stored.refreshToken
                let response: TokenResponse
                do throws(ProviderError) {
                    response = try await client.refresh(presented)
                } catch  where error.oauthError == "invalid_grant" {
                    // Re-read before giving up: another process may have rotated the token.
                    let reread = try await Self.load(store)
                    if let current = reread.session, current.refreshToken != stored.refreshToken || current.rotation != stored.rotation {
                        record = reread
                        continue
                    }
                    if stored.pendingRefreshToken != nil {
                        stored.pendingRefreshToken = nil
                        record.session = stored
                        continue
                    }
                    record.session = nil
                    try await Self.save(store, record)
                    throw SessionError.refreshTokenRejected
                } catch {
                    throw SessionError.provider(error)
                }
                var base = stored
                base.refreshToken = presented
                base.pendingRefreshToken = nil
                let verified: VerifiedTokens
                do {
                    if let decided = try await verifier.verifyRefreshWithCachedKeys(response, previous: base, now: now) {
                        // The cached keys decided without I/O, in a fraction of one durable write: the
                        // outcome, promoted or rejected, is made durable in the single write below,
                        // before the rotated token is used or acknowledged.
                        verified = decided
                    } else {
                        if let rotated = response.refreshToken, rotated != presented {
                            // A key fetch must come first: the rotated token is durable, as pending,
                            // before it (DESIGN invariant 3).
                            stored.pendingRefreshToken = rotated
                            record.session = stored
                            do {
                                try await Self.save(store, record)
                            } catch {
                                throw RefreshStorageFailure(error: Self.storageError(error))
                            }
                        }
                        verified = try await verifier.verifyRefresh(response, previous: base, now: now)
                    }
                } catch let failure as RefreshStorageFailure {
                    throw failure
                } catch SessionError.verificationFailed(let failure) {
                    // Nothing of a rejected response becomes current; every token it touched is revoked.
                    record.session = nil
                    record.pendingRevocations.append(presented)
                    if let rotated = response.refreshToken, rotated != presented { record.pendingRevocations.append(rotated) }
                    try? await Self.save(store, record)
                    throw SessionError.verificationFailed(failure)
                } catch {
                    // The keys could not be fetched: nothing was judged. The rotated token stays pending
                    // in the store, and the retry presents it.
                    throw error
                }
                record.session = verified.stored()
                do {
                    try await Self.save(store, record)
                } catch {
                    throw RefreshStorageFailure(error: Self.storageError(error))
                }
                return verified
            }
            throw SessionError.refreshTokenRejected
        }
    }

    private func refreshFailure(for error: SessionError) -> RefreshFailure {
        switch error {
        case .provider(let provider) where provider.isTransient:
            let attempt = machine.retryAttempt ?? 1
            return .transient(
                error, retryIn: configuration.refreshRetry.delay(afterAttempt: attempt, retryAfter: provider.retryAfter, using: &random))
        case .provider, .storage:
            // Not the refresh token's fault: keep the session, fail these callers, let the next call try again.
            return .transient(error, retryIn: nil)
        default:
            return .permanent(error)
        }
    }

    // MARK: - Sign-out

    func runRevoke(generation: UInt64) async {
        let store = self.store
        let tokens: [Secret]
        do {
            tokens = try await store.withLease { () async throws -> [Secret] in
                var record = try await Self.load(store)
                if record.pendingOperation != .signOut {
                    // The intent is durable before the first server call.
                    record.pendingOperation = .signOut
                    try await Self.save(store, record)
                }
                return [record.session?.pendingRefreshToken, record.session?.refreshToken].compactMap { $0 }
            }
        } catch {
            step { $0.serverOperationFailed(.storage(Self.storageError(error)), generation: generation) }
            return
        }
        let outcome: ServerOperationFailure?
        do {
            var told = true
            for token in tokens where told {
                told = try await client.revoke(token)
            }
            outcome = told ? nil : .cannotTell("the provider has no revocation endpoint")
        } catch where error.isTransient {
            let failure = transientFailure(error)
            step { $0.serverOperationFailed(failure, generation: generation) }
            return
        } catch {
            // The provider refuses the revocation for good: signing out cannot be refused, so wipe.
            outcome = .refused(status: error.status ?? 0)
        }
        do {
            try await Self.update(store) { record in
                // Only what this sign-out revoked: a new sign-in may already have stored its session.
                if let session = record.session, tokens.contains(session.refreshToken) { record.session = nil }
                if record.pendingOperation == .signOut { record.pendingOperation = nil }
            }
        } catch {
            step { $0.serverOperationFailed(.storage(Self.storageError(error)), generation: generation) }
            return
        }
        if let outcome {
            step { $0.serverOperationFailed(outcome, generation: generation) }
        } else {
            step { $0.serverOperationConfirmed(generation: generation, subject: nil) }
        }
    }

    // MARK: - Account deletion

    func runDisconnect(generation: UInt64) async {
        let store = self.store
        do {
            let session = try await store.withLease { () async throws -> StoredSession? in
                var record = try await Self.load(store)
                if record.pendingOperation != .deleteAccount {
                    record.pendingOperation = .deleteAccount
                    try await Self.save(store, record)
                }
                return record.session
            }
            guard var session, configuration.provider.disconnectEndpoint != nil, let deviceKeys else {
                try await Self.update(store) { $0.pendingOperation = nil }
                step { $0.serverOperationFailed(.cannotTell("the provider offers no app disconnect"), generation: generation) }
                return
            }
            let lead = SessionStateMachine<VerifiedTokens, Waiter>.seconds(configuration.refreshLeadTime)
            var refreshed = false
            var deviceKey: Secret?
            var alreadyDisconnected = false
            while deviceKey == nil && !alreadyDisconnected {
                if !refreshed && (session.accessToken == nil || (session.accessTokenExpiresAt?.timeIntervalSince(wallClock()) ?? 0) <= lead) {
                    // The device-key exchange needs a valid access token (typically after a relaunch).
                    refreshed = true
                    do {
                        session = try await refreshUnderLease(previous: nil, forJournaledOperation: true).stored()
                    } catch SessionError.provider(let error) {
                        throw error
                    } catch SessionError.refreshTokenRejected {
                        // The grant is gone at the provider: a disconnect that completed before a
                        // relaunch ends it exactly so. Nothing is left to disconnect.
                        alreadyDisconnected = true
                        continue
                    }
                }
                do {
                    deviceKey = try await deviceKeys.disconnectKey(accessToken: session.accessToken ?? Secret(""))
                } catch let error as ProviderError where error.status == 401 && !refreshed {
                    // The stored access token was revoked (the disconnect may already have happened):
                    // refresh once and ask again.
                    session.accessToken = nil
                    continue
                } catch let error as ProviderError {
                    throw error
                } catch {
                    throw ProviderError.invalidResponse("device key unavailable")
                }
            }
            if let deviceKey { _ = try await client.disconnect(deviceKey: deviceKey) }
            try await Self.update(store) { record in
                if let current = record.session {
                    record.pendingRevocations += [current.pendingRefreshToken, current.refreshToken].compactMap { $0 }
                }
                record.session = nil
                record.pendingOperation = nil
            }
            try? await deviceKeys.reset()
            startBackgroundRevoker()
            step { $0.serverOperationConfirmed(generation: generation, subject: session.subject) }
        } catch let error as ProviderError where error.isTransient {
            let failure = transientFailure(error)
            step { $0.serverOperationFailed(failure, generation: generation) }
        } catch let error as ProviderError {
            // 401/403 (or another refusal): the account stays; so do the credentials.
            do {
                try await Self.update(store) { $0.pendingOperation = nil }
                step { $0.serverOperationFailed(.refused(status: error.status ?? 0), generation: generation) }
            } catch {
                step { $0.serverOperationFailed(.storage(Self.storageError(error)), generation: generation) }
            }
        } catch SessionError.storage(let error) {
            step { $0.serverOperationFailed(.storage(error), generation: generation) }
        } catch let error as SessionError {
            // The session could not be refreshed for the device-key exchange: the provider cannot be told.
            step { $0.serverOperationFailed(.cannotTell("\(error)"), generation: generation) }
        } catch {
            step { $0.serverOperationFailed(.storage(Self.storageError(error)), generation: generation) }
        }
    }

    private func transientFailure(_ error: ProviderError) -> ServerOperationFailure {
        let attempt = machine.retryAttempt ?? 1
        let delay = configuration.serverFirstRetry.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random) ?? .zero
        return .transient(error.summary, retryIn: delay)
    }

    // MARK: - Background revocation of old refresh tokens

    /// Moves the current session's refresh tokens to the revocation queue (a new sign-in started
    /// while a sign-out still waited for the provider).
    func deferCurrentRevocation() async {
        try? await Self.update(store) { record in
            if let session = record.session {
                record.pendingRevocations += [session.pendingRefreshToken, session.refreshToken].compactMap { $0 }
            }
            record.session = nil
            record.pendingOperation = nil
        }
        startBackgroundRevoker()
    }

    /// Tokens that arrived after the session moved on: never current, always revoked.
    func discardLate(_ tokens: VerifiedTokens) async {
        try? await Self.update(store) { record in
            // A journaled sign-out or deletion owns the stored session and revokes it itself.
            if record.pendingOperation == nil, record.session?.refreshToken == tokens.refreshToken { record.session = nil }
            if !record.pendingRevocations.contains(tokens.refreshToken) { record.pendingRevocations.append(tokens.refreshToken) }
        }
        startBackgroundRevoker()
    }

    func startBackgroundRevoker() {
        guard backgroundRevoker == nil else { return }
        backgroundRevoker = Task { await self.drainPendingRevocations() }
    }

    private func drainPendingRevocations() async {
        var attempt = 0
        while !Task.isCancelled {
            guard let record = try? await store.load(), let token = record.pendingRevocations.first else { break }
            do {
                let told = try await client.revoke(token)
                try await Self.update(store) { $0.pendingRevocations.removeAll { $0 == token } }
                attempt = 0
                if told { publish(.deferredRevocationCompleted) }
            } catch let error as ProviderError where error.isTransient {
                attempt += 1
                let delay =
                    configuration.serverFirstRetry.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random)
                    ?? .seconds(60)
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    break
                }
            } catch is ProviderError {
                // Refused for good (unknown to the provider, or malformed): nothing more can be done with it.
                try? await Self.update(store) { $0.pendingRevocations.removeAll { $0 == token } }
            } catch {
                break
            }
        }
        backgroundRevoker = nil
    }

    // MARK: - Store helpers

    static func load(_ store: any CredentialStore) async throws -> CredentialRecord {
        do {
            return try await store.load()
        } catch {
            throw SessionError.storage(error)
        }
    }

    static func save(_ store: any CredentialStore, _ record: CredentialRecord) async throws {
        do {
            try await store.save(record)
        } catch {
            throw SessionError.storage(error)
        }
    }

    /// One atomic read-modify-write under the store's lease.
    static func update(_ store: any CredentialStore, _ change: @escaping @Sendable (inout CredentialRecord) -> Void) async throws {
        try await store.withLease {
            var record = try await load(store)
            change(&record)
            try await save(store, record)
        }
    }

    static func sessionError(_ error: any Error) -> SessionError {
        switch error {
        case let error as SessionError: error
        case let error as ProviderError: .provider(error)
        case let error as CredentialStoreError: .storage(error)
        case let error as RefreshStorageFailure: .storage(error.error)
        case is CancellationError: .cancelled
        default: .provider(.invalidResponse("unexpected failure"))
        }
    }

    static func storageError(_ error: any Error) -> CredentialStoreError {
        switch error {
        case let error as CredentialStoreError: error
        case SessionError.storage(let error): error
        default: .ioFailure("unexpected failure")
        }
    }
}

/// The store failed after the provider rotated the refresh token: the session cannot continue durably.
struct RefreshStorageFailure: Error {
    var error: CredentialStoreError
}
