import Foundation
import SessionKitCore
import SessionKitJOSE

/// A verified token set as the procedures see it: the machine's view plus its stored form.
protocol ProcedureTokens: MachineTokens {
    /// The record that makes this token set durable.
    func stored() -> StoredSession
}

/// How one refresh under the store's lease ended.
enum RefreshOutcome<Tokens: ProcedureTokens>: Sendable {
    /// Verified tokens, already durable: refreshed here, or adopted from another process.
    case refreshed(Tokens)
    /// The store holds no session this refresh may use (signed out, or a journaled operation owns it).
    case notSignedIn
    /// The provider refused the refresh token for good, also after a re-read of the store.
    case refreshTokenRejected(ProviderError)
    /// The refreshed id_token failed verification; every token it touched is queued for revocation.
    case idTokenRejected(IDTokenError)
    /// The provider, or its signing keys, could not be reached or answered badly; nothing was judged.
    case providerFailed(ProviderError)
    /// The store failed after the provider may have rotated the refresh token.
    case storageFailed(CredentialStoreError)
    /// The stored session has no refresh token (the provider issued none) and its access token is
    /// due: the session has ended.
    case refreshTokenMissing
    /// The store now holds another account's session (DESIGN invariant 9): it is neither adopted
    /// nor refreshed, and left as it is.
    case anotherAccount
    /// The DPoP key the refresh token is bound to is gone or is another key: the token was not
    /// presented, and the store is left as it is, as at a restore that finds the same.
    case dpopKeyUnavailable(DPoPKeyLoss)
    /// The procedure was fed an answer it cannot be waiting for (a bug in SessionKit).
    case inconsistent(String)
}

/// What verifying a refresh response said.
enum RefreshVerification<Tokens: ProcedureTokens>: Sendable {
    /// Every check passed.
    case verified(Tokens)
    /// The cached signing keys cannot decide (none fresh, or an unknown `kid`): only a key fetch can.
    case undecided
    /// A check failed.
    case rejected(IDTokenError)
    /// The signing keys could not be fetched.
    case keysUnavailable(ProviderError)
}

/// One refresh under the store's lease, as a sequence of steps the owner performs.
///
/// The procedure adopts another process's newer verified result; otherwise it presents the
/// newest refresh token the store holds (a pending one left by an interrupted refresh first),
/// re-reads the store when the provider refuses it (another process may have rotated first), keeps
/// a rotated token durable as pending before any key fetch (DESIGN invariant 3), and makes the
/// verified result durable before it is used. At most two passes: the second only after a re-read
/// found a newer record or dropped a pending token the provider refused.
///
/// A refresh refused with `use_dpop_nonce` that gave a new nonce (RFC 9449 §8,
/// ``DPoPFailure/Code/useNonce``) is sent once more as a step of its own,
/// ``Step/retryRefreshWithNonce(_:)``: the same refresh token, with a fresh proof carrying the
/// nonce. A second nonce demand ends the attempt as the provider's `use_dpop_nonce` answer, which
/// keeps the session; an `invalid_grant` answering the retry is
/// ``DPoPFailure/Code/refreshTokenSpentByNonceRetry``: the provider spent the token on the
/// request it refused. Never more than one nonce retry per refresh request.
///
/// It performs nothing itself: each input returns the next ``Step``, and the owner feeds back what
/// performing it gave. Script tests drive every branch.
struct RefreshProcedure<Tokens: ProcedureTokens> {
    /// The next thing the owner must do.
    enum Step {
        /// Read the store's record.
        case load
        /// Another process stored a newer session: check that it is complete and the same account.
        case adopt(StoredSession)
        /// Send a refresh presenting this token.
        case requestRefresh(Secret)
        /// Send the refresh once more, presenting the same token, with a fresh proof carrying the
        /// nonce the provider just gave (RFC 9449 §8); its answer goes to ``refreshAnswered(_:)``.
        case retryRefreshWithNonce(Secret)
        /// Verify the response with the cached signing keys only.
        case verifyWithCachedKeys(TokenResponse, base: StoredSession)
        /// Verify the response, fetching the signing keys as needed.
        case verifyWithFetchedKeys(TokenResponse, base: StoredSession)
        /// Replace the store's record.
        case save(CredentialRecord)
        /// The procedure ended.
        case finish(RefreshOutcome<Tokens>)
    }

    private enum Phase {
        case loading
        case checkingAdoption
        case requesting
        case retryingWithNonce
        case rereading(ProviderError)
        case savingRejection(ProviderError)
        case verifyingWithCachedKeys(TokenResponse)
        case savingPending(TokenResponse)
        case verifyingWithFetchedKeys(TokenResponse)
        case savingVerified(Tokens)
        case savingRejected(IDTokenError)
        case finished
    }

    /// The session being refreshed, or `nil` at cold launch (anything stored is the session).
    let previous: StoredSession?
    /// Whether a journaled sign-out or deletion owns the stored session and may refresh it.
    let forJournaledOperation: Bool
    /// When tokens are due: an adopted session must not be.
    let timing: RefreshTiming

    private var phase = Phase.loading
    private var record = CredentialRecord()
    private var stored: StoredSession?
    private var presented: Secret?
    private var pass = 0

    init(previous: StoredSession?, forJournaledOperation: Bool, timing: RefreshTiming) {
        self.previous = previous
        self.forJournaledOperation = forJournaledOperation
        self.timing = timing
    }

    /// The first step.
    mutating func start() -> Step {
        phase = .loading
        return .load
    }

    /// The store's record was read (or could not be).
    mutating func loaded(_ result: Result<CredentialRecord, CredentialStoreError>, now: Date) -> Step {
        let loaded: CredentialRecord
        switch result {
        case .success(let value): loaded = value
        case .failure(let error): return finish(.storageFailed(error))
        }
        switch phase {
        case .loading:
            record = loaded
            return nextPass(now: now)
        case .rereading(let refusal):
            guard let stored else { return inconsistency("re-read without a presented session") }
            if let current = loaded.session, current.refreshToken != stored.refreshToken || current.rotation != stored.rotation {
                // Another process rotated the token meanwhile: start over from its record.
                record = loaded
                return nextPass(now: now, refusal: refusal)
            }
            if stored.pendingRefreshToken != nil {
                // The interrupted refresh's token was never accepted: fall back to the one before it.
                var fallback = stored
                fallback.pendingRefreshToken = nil
                record.session = fallback
                return nextPass(now: now, refusal: refusal)
            }
            record.session = nil
            phase = .savingRejection(refusal)
            return .save(record)
        case .checkingAdoption, .requesting, .retryingWithNonce, .savingRejection, .verifyingWithCachedKeys, .savingPending,
            .verifyingWithFetchedKeys, .savingVerified, .savingRejected, .finished:
            return inconsistency("a record was loaded in the wrong phase")
        }
    }

    /// The adoption check of ``Step/adopt(_:)``: the verified tokens, or `nil` when the record is
    /// incomplete or names another account.
    mutating func adoptionChecked(_ adopted: Tokens?, now: Date) -> Step {
        guard case .checkingAdoption = phase, let stored else { return inconsistency("adoption checked in the wrong phase") }
        // A session without a refresh token is good until its access token expires, not before.
        if let adopted, !timing.isDue(expiresAt: adopted.accessTokenExpiresAt, canRefresh: adopted.canRefresh, now: now) {
            return finish(.refreshed(adopted))
        }
        return request(stored)
    }

    /// The provider answered the refresh request, or its nonce retry.
    mutating func refreshAnswered(_ result: Result<TokenResponse, ProviderError>) -> Step {
        let retried: Bool
        switch phase {
        case .requesting: retried = false
        case .retryingWithNonce: retried = true
        case .loading, .checkingAdoption, .rereading, .savingRejection, .verifyingWithCachedKeys, .savingPending,
            .verifyingWithFetchedKeys, .savingVerified, .savingRejected, .finished:
            return inconsistency("a refresh answer arrived in the wrong phase")
        }
        switch result {
        case .success(let response):
            phase = .verifyingWithCachedKeys(response)
            return .verifyWithCachedKeys(response, base: base())
        case .failure(let error) where error.asksForNonceRetry:
            guard !retried, let presented else {
                // The retry was refused for a nonce as well: the provider's answer, about the proof
                // and never the grant. The session keeps its refresh token; nothing repeats it.
                return finish(.providerFailed(DPoPNonceStep.refusal(at: .token)))
            }
            // The same token once more; the proof carries the nonce the refusal gave.
            phase = .retryingWithNonce
            return .retryRefreshWithNonce(presented)
        case .failure(let error):
            var error = error
            if retried, error.oauthError == "invalid_grant" {
                // The token was accepted as a grant a moment ago and is refused now: the provider
                // spent it on the request it refused for the nonce. Said as such, never retried.
                error = .dpop(DPoPFailure(.refreshTokenSpentByNonceRetry))
            }
            switch error.disposition(in: .refresh) {
            case .permanent:
                // Re-read before giving up: another process may have rotated the token.
                phase = .rereading(error)
                return .load
            case .transient:
                return finish(.providerFailed(error))
            }
        }
    }

    /// The token of ``Step/requestRefresh(_:)`` or ``Step/retryRefreshWithNonce(_:)`` was not
    /// presented: the DPoP key it is bound to is not in the key store (RFC 9449: never without
    /// its key's proof, never with another key's).
    mutating func keyUnavailable(_ loss: DPoPKeyLoss) -> Step {
        switch phase {
        case .requesting, .retryingWithNonce:
            // Nothing was sent and nothing is judged: the record stays for the next sign-in.
            return finish(.dpopKeyUnavailable(loss))
        case .loading, .checkingAdoption, .rereading, .savingRejection, .verifyingWithCachedKeys, .savingPending,
            .verifyingWithFetchedKeys, .savingVerified, .savingRejected, .finished:
            return inconsistency("a missing key was reported in the wrong phase")
        }
    }

    /// The verification of ``Step/verifyWithCachedKeys(_:base:)`` or ``Step/verifyWithFetchedKeys(_:base:)``.
    mutating func verified(_ verification: RefreshVerification<Tokens>) -> Step {
        let response: TokenResponse
        let cached: Bool
        switch phase {
        case .verifyingWithCachedKeys(let value):
            response = value
            cached = true
        case .verifyingWithFetchedKeys(let value):
            response = value
            cached = false
        case .loading, .checkingAdoption, .requesting, .retryingWithNonce, .rereading, .savingRejection, .savingPending,
            .savingVerified, .savingRejected, .finished:
            return inconsistency("a verification arrived in the wrong phase")
        }
        switch verification {
        case .verified(let tokens):
            // Verification took no I/O after the answer: the one write below makes the outcome
            // durable before the rotated token is used or acknowledged.
            record.session = tokens.stored()
            phase = .savingVerified(tokens)
            return .save(record)
        case .undecided where cached:
            if var pending = stored, let rotated = response.refreshToken, rotated != presented {
                // A key fetch must come first: the rotated token is durable, as pending, before it.
                pending.pendingRefreshToken = rotated
                stored = pending
                record.session = pending
                phase = .savingPending(response)
                return .save(record)
            }
            phase = .verifyingWithFetchedKeys(response)
            return .verifyWithFetchedKeys(response, base: base())
        case .undecided:
            return inconsistency("a verification with fetched keys cannot be undecided")
        case .rejected(let failure):
            // Nothing of a rejected response becomes current; every token it touched is revoked.
            record.session = nil
            if let presented { record.pendingRevocations.append(presented) }
            if let rotated = response.refreshToken, rotated != presented { record.pendingRevocations.append(rotated) }
            phase = .savingRejected(failure)
            return .save(record)
        case .keysUnavailable(let error):
            // Nothing was judged: a rotated token stays pending in the store, and the retry presents it.
            return finish(.providerFailed(error))
        }
    }

    /// The store was written (or could not be).
    mutating func saved(_ result: Result<Void, CredentialStoreError>) -> Step {
        switch phase {
        case .savingRejection(let refusal):
            if case .failure(let error) = result { return finish(.storageFailed(error)) }
            return finish(.refreshTokenRejected(refusal))
        case .savingPending(let response):
            if case .failure(let error) = result { return finish(.storageFailed(error)) }
            phase = .verifyingWithFetchedKeys(response)
            return .verifyWithFetchedKeys(response, base: base())
        case .savingVerified(let tokens):
            if case .failure(let error) = result { return finish(.storageFailed(error)) }
            return finish(.refreshed(tokens))
        case .savingRejected(let failure):
            // The rejection stands whether or not the wipe was written: the tokens are never used.
            return finish(.idTokenRejected(failure))
        case .loading, .checkingAdoption, .requesting, .retryingWithNonce, .rereading, .verifyingWithCachedKeys,
            .verifyingWithFetchedKeys, .finished:
            return inconsistency("a save finished in the wrong phase")
        }
    }

    // MARK: - Helpers

    private mutating func nextPass(now: Date, refusal: ProviderError? = nil) -> Step {
        pass += 1
        if pass > 2, let refusal { return finish(.refreshTokenRejected(refusal)) }
        guard let session = record.session, forJournaledOperation || record.pendingOperation == nil else {
            return finish(.notSignedIn)
        }
        stored = session
        if let previous, !OneAccountPerStore.sameAccount(session, previous) { return finish(.anotherAccount) }
        if session.refreshToken == nil, session.pendingRefreshToken == nil {
            // Nothing to refresh with: the stored access token is all there is, if still good.
            phase = .checkingAdoption
            return .adopt(session)
        }
        if let previous, session.refreshToken != previous.refreshToken || session.rotation > previous.rotation {
            // Another process sharing the store refreshed first: adopt its result if it is good.
            phase = .checkingAdoption
            return .adopt(session)
        }
        return request(session)
    }

    private mutating func request(_ session: StoredSession) -> Step {
        // A pending token left by an interrupted refresh is the newest the provider issued.
        guard let token = session.pendingRefreshToken ?? session.refreshToken else { return finish(.refreshTokenMissing) }
        presented = token
        phase = .requesting
        return .requestRefresh(token)
    }

    /// The session the response refreshes: the presented token as its refresh token.
    private func base() -> StoredSession {
        // Every caller has checked that a session was presented; an empty base fails verification.
        guard var base = stored, let presented else { return StoredSession(refreshToken: nil, issuer: "", subject: "", audience: []) }
        base.refreshToken = presented
        base.pendingRefreshToken = nil
        return base
    }

    /// Our own bug: an answer in the wrong phase. A debug build stops here; a release build ends
    /// the attempt, and the session stops (``SessionStateMachine/inconsistency(_:resuming:)``).
    private mutating func inconsistency(_ what: String) -> Step {
        assertionFailure("RefreshProcedure: \(what)")
        return finish(.inconsistent(what))
    }

    private mutating func finish(_ outcome: RefreshOutcome<Tokens>) -> Step {
        phase = .finished
        return .finish(outcome)
    }
}

extension RefreshProcedure.Step: Sendable where Tokens: Sendable {}
