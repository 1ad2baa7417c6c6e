import Foundation
import SessionKitCore

extension Session {
    // MARK: - Sign-out

    /// Performs a ``SignOutProcedure`` and tells the machine how it ended.
    func runRevoke(generation: UInt64, attempt: Int) async {
        var procedure = SignOutProcedure()
        var step = procedure.start()
        while true {
            switch step {
            case .journal:
                step = procedure.journaled(await journal(.signOut))
            case .reportNotJournaled(let error):
                modify { $0.serverOperationNotJournaled(error, generation: generation) }
                step = procedure.reportedNotJournaled()
            case .revoke(let revocation):
                let answer: Result<Bool, ProviderError>
                do throws(ProviderError) {
                    let client = self.client
                    answer = .success(
                        try await DPoPNonceStep.sendingOnceMoreForNonce(at: .revocation) { () async throws(ProviderError) in
                            try await client.revoke(revocation.token, tokenTypeHint: revocation.hint)
                        })
                } catch {
                    answer = .failure(error)
                }
                step = procedure.revoked(answer)
            case .wipe:
                let wipe = procedure
                let wiped = await updateReporting { record in Self.wiping(&record) { wipe.wipe(&$0) } }
                if case .success(let key) = wiped {
                    await deleteKey(key)
                    await removeHighAssuranceItem()
                }
                step = procedure.wiped(wiped.map { _ in () })
            case .finish(let outcome):
                return finishSignOut(outcome, generation: generation, attempt: attempt)
            }
        }
    }

    /// Runs `wipe` on `record`; answers the DPoP key of the session it removed, to be deleted
    /// once the wipe is durable.
    static func wiping(_ record: inout CredentialRecord, _ wipe: (inout CredentialRecord) -> Void) -> StoredDPoPKey? {
        let key = record.session?.dpopKey
        wipe(&record)
        return record.session == nil ? key : nil
    }

    private func finishSignOut(_ outcome: SignOutOutcome, generation: UInt64, attempt: Int) {
        switch outcome {
        case .confirmed(let hint):
            let endSession = endSessionPlan(idTokenHint: hint)
            modify { $0.serverOperationConfirmed(generation: generation, subject: nil, endSession: endSession) }
        case .cannotTell(let why, let hint):
            serverOperationFailed(.cannotTell(why), generation: generation, endSession: endSessionPlan(idTokenHint: hint))
        case .refused(let status, let hint):
            serverOperationFailed(.refused(status: status), generation: generation, endSession: endSessionPlan(idTokenHint: hint))
        case .transient(let error):
            let policy = configuration.serverFirstRetry
            let failure = core.withLock { ServerOperationFailure.transient(error, attempt: attempt, policy: policy, random: &$0.random) }
            serverOperationFailed(failure, generation: generation)
        case .storage(let error):
            serverOperationFailed(.storage(error), generation: generation)
        case .inconsistent(let what):
            serverOperationFailed(.inconsistent(what), generation: generation)
        }
    }

    /// Records `operation` in the store's journal before the first server call; answers with the
    /// stored session, and whether it could be written.
    private func journal(_ operation: PendingOperation) async -> JournalAnswer {
        let store = self.store
        let answer = await leased { () async -> JournalAnswer in
            let record: CredentialRecord
            do throws(CredentialStoreError) {
                record = try await store.load()
            } catch {
                return .unreadable(error)
            }
            guard record.pendingOperation != operation else { return .journaled(record.session) }
            var journaled = record
            journaled.pendingOperation = operation
            do throws(CredentialStoreError) {
                try await store.save(journaled)
                return .journaled(record.session)
            } catch {
                return .notJournaled(record.session, error)
            }
        }
        switch answer {
        case .success(let answer): return answer
        case .failure(let error): return .unreadable(error)
        }
    }

    // MARK: - Account deletion

    /// Performs a ``DisconnectProcedure`` and tells the machine how it ended.
    func runDisconnect(generation: UInt64, attempt: Int) async {
        var procedure = DisconnectProcedure<VerifiedTokens>(
            hasDisconnectEndpoint: configuration.provider.disconnectEndpoint != nil, hasDeviceKeySource: deviceKeys != nil,
            timing: configuration.refreshTiming)
        var step = procedure.start()
        while true {
            switch step {
            case .journal:
                let journaled = await journal(.deleteAccount)
                step = procedure.journaled(journaled, now: wallClock())
            case .reportNotJournaled(let error):
                modify { $0.serverOperationNotJournaled(error, generation: generation) }
                step = procedure.reportedNotJournaled(now: wallClock())
            case .clearJournal:
                step = procedure.journalCleared(await update { $0.pendingOperation = nil })
            case .refresh:
                step = procedure.refreshed(await refreshUnderLease(previous: nil, forJournaledOperation: true))
            case .requestDeviceKey(let accessToken):
                guard let deviceKeys else {
                    // Our bug: the procedure was told there is no source. A debug build stops
                    // here; a release build stops the session.
                    let what = "the procedure asked for a device key without a source"
                    assertionFailure(what)
                    return finishDisconnect(.inconsistent(what), generation: generation, attempt: attempt)
                }
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
                let wiped = await updateReporting { record in Self.wiping(&record) { $0.wipeAfterDeletion() } }
                if case .success(let key) = wiped {
                    await deleteKey(key)
                    await removeHighAssuranceItem()
                    await resetGuestCredential()
                }
                step = procedure.wiped(wiped.map { _ in () })
            case .resetDeviceCredential:
                try? await deviceKeys?.reset()
                revocationsQueued()
                step = procedure.deviceCredentialReset()
            case .finish(let outcome):
                return finishDisconnect(outcome, generation: generation, attempt: attempt)
            }
        }
    }

    private func finishDisconnect(_ outcome: DisconnectOutcome, generation: UInt64, attempt: Int) {
        if case .confirmed(let subject) = outcome {
            modify { $0.serverOperationConfirmed(generation: generation, subject: subject) }
            return
        }
        let policy = configuration.serverFirstRetry
        let failure = core.withLock { ServerOperationFailure(outcome, attempt: attempt, policy: policy, random: &$0.random) }
        if let failure { serverOperationFailed(failure, generation: generation) }
    }

    private func serverOperationFailed(_ failure: ServerOperationFailure, generation: UInt64, endSession: EndSessionPlan = .notRequested) {
        modify { $0.serverOperationFailed(failure, generation: generation, endSession: endSession) }
    }

    // MARK: - The revocation queue

    /// Moves the current session's refresh tokens to the revocation queue (a new sign-in started
    /// while a sign-out still waited for the provider).
    func deferCurrentRevocation() async {
        _ = await update { $0.deferSessionRevocation() }
        revocationsQueued()
    }

    /// Tokens that arrived after the session moved on: never current, always revoked.
    func discardLate(_ tokens: VerifiedTokens) async {
        let refreshToken = tokens.refreshToken
        let accessToken = tokens.accessToken
        _ = await update { $0.discardLate(refreshToken: refreshToken, accessToken: accessToken) }
        if refreshToken != nil { revocationsQueued() }
    }

    /// One attempt at the first token of the store's revocation queue; the machine's
    /// ``SessionStateMachine/revocationQueue`` decides what follows (the next token, a backoff on
    /// its timers, or rest).
    func revokeFirstQueued(attempt: Int) async {
        let answer: QueuedRevocationAnswer
        if let token = try? await store.load().pendingRevocations.first {
            do throws(ProviderError) {
                // Without a proof: the token's own key ended with its session (see `proofFreeClient`).
                let client = self.proofFreeClient
                let told = try await client.revoke(token)
                _ = await update { $0.pendingRevocations.removeAll { $0 == token } }
                answer = .removed(told: told)
            } catch {
                switch error.disposition(in: .revocation) {
                case .transient:
                    let policy = configuration.serverFirstRetry
                    let delay = core.withLock {
                        policy.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &$0.random) ?? .seconds(60)
                    }
                    answer = .transient(retryIn: delay)
                case .permanent:
                    // Refused for good (unknown to the provider, or malformed): nothing more can be done with it.
                    _ = await update { $0.pendingRevocations.removeAll { $0 == token } }
                    answer = .removed(told: false)
                }
            }
        } else {
            answer = .queueEmpty
        }
        modify { $0.queuedRevocationAnswered(answer) }
    }
}
