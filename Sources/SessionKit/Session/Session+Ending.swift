import Foundation

extension Session {
    // MARK: - Sign-out

    /// Journals the sign-out, revokes at the provider, wipes, then tells the machine.
    func runRevoke(generation: UInt64, attempt: Int) async {
        let store = self.store
        let journaled = await leased { () async -> Result<StoredSession?, CredentialStoreError> in
            do throws(CredentialStoreError) {
                var record = try await store.load()
                if record.pendingOperation != .signOut {
                    // The intent is durable before the first server call.
                    record.pendingOperation = .signOut
                    try await store.save(record)
                }
                return .success(record.session)
            } catch {
                return .failure(error)
            }
        }.flatMap { $0 }
        let stored: StoredSession?
        switch journaled {
        case .success(let value): stored = value
        case .failure(let error): return serverOperationFailed(.storage(error), generation: generation)
        }
        let tokens = [stored?.pendingRefreshToken, stored?.refreshToken].compactMap { $0 }
        // A session the provider issued no refresh token for holds only its access token.
        let accessToken = tokens.isEmpty ? stored?.accessToken : nil
        let revocations = tokens.map { ($0, "refresh_token") } + (accessToken.map { [($0, "access_token")] } ?? [])
        var unconfirmed: ServerOperationFailure?
        for (token, hint) in revocations {
            do throws(ProviderError) {
                if try await client.revoke(token, tokenTypeHint: hint) { continue }
                unconfirmed = .cannotTell("the provider has no revocation endpoint")
            } catch {
                switch error.disposition(in: .revocation) {
                case .transient:
                    let failure = ServerOperationFailure.transient(
                        error, attempt: attempt, policy: configuration.serverFirstRetry, random: &random)
                    return serverOperationFailed(failure, generation: generation)
                case .permanent:
                    // The provider refuses the revocation for good: signing out cannot be refused, so wipe.
                    unconfirmed = .refused(status: error.status ?? 0)
                }
            }
            break
        }
        let wiped = await update { record in
            // Only what this sign-out revoked: a new sign-in may already have stored its session.
            if let session = record.session, session.refreshToken.map(tokens.contains) ?? (session.accessToken == accessToken) {
                record.session = nil
            }
            if record.pendingOperation == .signOut { record.pendingOperation = nil }
        }
        if case .failure(let error) = wiped { return serverOperationFailed(.storage(error), generation: generation) }
        let endSession = endSessionPlan(idTokenHint: stored?.idToken)
        if let unconfirmed { return serverOperationFailed(unconfirmed, generation: generation, endSession: endSession) }
        perform(core.withLock { $0.serverOperationConfirmed(generation: generation, subject: nil, endSession: endSession) })
    }

    // MARK: - Account deletion

    /// Performs a ``DisconnectProcedure`` and tells the machine how it ended.
    func runDisconnect(generation: UInt64, attempt: Int) async {
        var procedure = DisconnectProcedure<VerifiedTokens>(
            hasDisconnectEndpoint: configuration.provider.disconnectEndpoint != nil, hasDeviceKeySource: deviceKeys != nil,
            leadSeconds: Machine.seconds(configuration.refreshLeadTime))
        let store = self.store
        var step = procedure.start()
        while true {
            switch step {
            case .journal:
                let journaled = await leased { () async -> Result<StoredSession?, CredentialStoreError> in
                    do throws(CredentialStoreError) {
                        var record = try await store.load()
                        if record.pendingOperation != .deleteAccount {
                            record.pendingOperation = .deleteAccount
                            try await store.save(record)
                        }
                        return .success(record.session)
                    } catch {
                        return .failure(error)
                    }
                }.flatMap { $0 }
                step = procedure.journaled(journaled, now: wallClock())
            case .clearJournal:
                step = procedure.journalCleared(await update { $0.pendingOperation = nil })
            case .refresh:
                step = procedure.refreshed(await refreshUnderLease(previous: nil, forJournaledOperation: true))
            case .requestDeviceKey(let accessToken):
                guard let deviceKeys else { preconditionFailure("the procedure asked for a device key without a source") }
                let answer: Result<Secret, ProviderError>
                do throws(ProviderError) {
                    answer = .success(try await deviceKeys.disconnectKey(accessToken: accessToken))
                } catch {
                    answer = .failure(error)
                }
                step = procedure.deviceKeyAnswered(answer)
            case .disconnect(let deviceKey):
                let answer: Result<Void, ProviderError>
                do throws(ProviderError) {
                    _ = try await client.disconnect(deviceKey: deviceKey)
                    answer = .success(())
                } catch {
                    answer = .failure(error)
                }
                step = procedure.disconnectAnswered(answer)
            case .wipe:
                step = procedure.wiped(
                    await update { record in
                        if let current = record.session {
                            record.pendingRevocations += [current.pendingRefreshToken, current.refreshToken].compactMap { $0 }
                        }
                        record.session = nil
                        record.pendingOperation = nil
                    })
            case .resetDeviceCredential:
                try? await deviceKeys?.reset()
                startBackgroundRevoker()
                step = procedure.deviceCredentialReset()
            case .finish(let outcome):
                return finishDisconnect(outcome, generation: generation, attempt: attempt)
            }
        }
    }

    private func finishDisconnect(_ outcome: DisconnectOutcome, generation: UInt64, attempt: Int) {
        guard let failure = ServerOperationFailure(outcome, attempt: attempt, policy: configuration.serverFirstRetry, random: &random)
        else {
            guard case .confirmed(let subject) = outcome else { preconditionFailure("only a confirmed outcome is not a failure") }
            perform(core.withLock { $0.serverOperationConfirmed(generation: generation, subject: subject) })
            return
        }
        serverOperationFailed(failure, generation: generation)
    }

    private func serverOperationFailed(_ failure: ServerOperationFailure, generation: UInt64, endSession: EndSessionPlan = .notRequested) {
        perform(core.withLock { $0.serverOperationFailed(failure, generation: generation, endSession: endSession) })
    }

    // MARK: - Background revocation of old refresh tokens

    /// Moves the current session's refresh tokens to the revocation queue (a new sign-in started
    /// while a sign-out still waited for the provider).
    func deferCurrentRevocation() async {
        _ = await update { record in
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
        let refreshToken = tokens.refreshToken
        let accessToken = tokens.accessToken
        _ = await update { record in
            // A journaled sign-out or deletion owns the stored session and revokes it itself.
            if record.pendingOperation == nil, let session = record.session,
                refreshToken.map({ session.refreshToken == $0 }) ?? (session.accessToken == accessToken)
            {
                record.session = nil
            }
            if let refreshToken, !record.pendingRevocations.contains(refreshToken) { record.pendingRevocations.append(refreshToken) }
        }
        // Without a refresh token nothing outlives the access token, which is never handed out.
        if refreshToken != nil { startBackgroundRevoker() }
    }

    func startBackgroundRevoker() {
        guard backgroundRevoker == nil else { return }
        backgroundRevoker = Task { await self.drainPendingRevocations() }
    }

    private func drainPendingRevocations() async {
        var attempt = 0
        while !Task.isCancelled {
            guard let record = try? await store.load(), let token = record.pendingRevocations.first else { break }
            do throws(ProviderError) {
                let told = try await client.revoke(token)
                _ = await update { $0.pendingRevocations.removeAll { $0 == token } }
                attempt = 0
                if told { publish(.deferredRevocationCompleted) }
            } catch {
                switch error.disposition(in: .revocation) {
                case .transient:
                    attempt += 1
                    let delay =
                        configuration.serverFirstRetry.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random)
                        ?? .seconds(60)
                    do {
                        try await clock.sleep(for: delay)
                    } catch {
                        backgroundRevoker = nil
                        return
                    }
                case .permanent:
                    // Refused for good (unknown to the provider, or malformed): nothing more can be done with it.
                    _ = await update { $0.pendingRevocations.removeAll { $0 == token } }
                }
            }
        }
        backgroundRevoker = nil
    }
}
