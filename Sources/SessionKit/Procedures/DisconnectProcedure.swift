import Foundation
import SessionKitCore

/// How one account-deletion attempt ended.
enum DisconnectOutcome: Sendable, Equatable {
    /// The provider confirmed (or had already done it); the store is wiped and the device credential reset.
    case confirmed(subject: String?)
    /// It may pass: retry after a backoff. The journal keeps the intent.
    case transient(ProviderError)
    /// The provider refused the disconnect; the journal is cleared and the credentials are kept.
    case refused(status: Int)
    /// The provider cannot be told (the profile has no disconnect, or no device-key source is set).
    case cannotTell(UnsupportedOperation)
    /// The store failed while journaling or wiping.
    case storage(CredentialStoreError)
    /// The procedure was fed an answer it cannot be waiting for (a bug in SessionKit).
    case inconsistent(String)
}

/// One account-deletion attempt (1pass.dev's app disconnect), as steps the owner performs.
///
/// Journal the intent; obtain a device key with a valid access token (refreshing once when the
/// stored one is missing, due, or refused with 401 — typically after a relaunch); disconnect; then
/// queue the session's refresh tokens for revocation, wipe, and reset the device credential. A
/// refresh token the provider already refuses means a disconnect that completed before a relaunch:
/// nothing is left to disconnect, so the wipe follows. Failures are classified with
/// `ProviderError.disposition(in:)` for `ProviderOperation.disconnect`.
struct DisconnectProcedure<Tokens: ProcedureTokens> {
    /// The next thing the owner must do.
    enum Step {
        /// Record the deletion in the store's journal; answer with what it found.
        case journal
        /// The store was read but the deletion could not be journaled: tell the machine, then call
        /// ``reportedNotJournaled(now:)``.
        case reportNotJournaled(CredentialStoreError)
        /// Clear the journal: the deletion ends without a wipe.
        case clearJournal
        /// Run a refresh procedure for the journaled operation.
        case refresh
        /// Ask the device-key source for a key, presenting this access token.
        case requestDeviceKey(accessToken: Secret)
        /// Call the provider's disconnect with this device key.
        case disconnect(deviceKey: Secret)
        /// Queue the session's refresh tokens for revocation, wipe the session and clear the journal.
        case wipe
        /// Forget the device credential (best effort).
        case resetDeviceCredential
        /// The attempt ended.
        case finish(DisconnectOutcome)
    }

    private enum Phase {
        case journaling
        case reportingNotJournaled(StoredSession?)
        case refreshing
        case requestingDeviceKey
        case disconnecting
        case wiping
        case resetting
        case clearingJournal(then: DisconnectOutcome)
        case finished
    }

    /// Whether the provider profile has a disconnect endpoint.
    let hasDisconnectEndpoint: Bool
    /// Whether the session has a device-key source.
    let hasDeviceKeySource: Bool
    /// When a stored access token is due: one inside the lead time is refreshed before use.
    let timing: RefreshTiming

    private var phase = Phase.journaling
    private var session: StoredSession?
    private var refreshed = false
    /// Whether the journal holds the deletion (and so must be cleared when it ends without a wipe).
    private var isJournaled = true

    init(hasDisconnectEndpoint: Bool, hasDeviceKeySource: Bool, timing: RefreshTiming) {
        self.hasDisconnectEndpoint = hasDisconnectEndpoint
        self.hasDeviceKeySource = hasDeviceKeySource
        self.timing = timing
    }

    /// The first step.
    mutating func start() -> Step {
        phase = .journaling
        return .journal
    }

    /// The journal of ``Step/journal`` answered. A store that could not be read ends the attempt;
    /// one that was read but not written lets it go on, unjournaled, once that is reported.
    mutating func journaled(_ answer: JournalAnswer, now: Date) -> Step {
        guard case .journaling = phase else { return inconsistency("journaled in the wrong phase") }
        switch answer {
        case .journaled(let stored): return begin(with: stored, now: now)
        case .notJournaled(let stored, let error):
            isJournaled = false
            phase = .reportingNotJournaled(stored)
            return .reportNotJournaled(error)
        case .unreadable(let error): return finish(.storage(error))
        }
    }

    /// The machine was told that the deletion is not journaled: go on as usual.
    mutating func reportedNotJournaled(now: Date) -> Step {
        guard case .reportingNotJournaled(let stored) = phase else { return inconsistency("reported in the wrong phase") }
        return begin(with: stored, now: now)
    }

    private mutating func begin(with stored: StoredSession?, now: Date) -> Step {
        guard hasDisconnectEndpoint else { return clearJournal(then: .cannotTell(.accountDeletion)) }
        guard hasDeviceKeySource else {
            return clearJournal(then: .cannotTell(.deviceKey))
        }
        guard let stored else { return clearJournal(then: .cannotTell(.nothingStored)) }
        session = stored
        let due = stored.accessToken == nil || stored.accessTokenExpiresAt.map { timing.isDue(expiresAt: $0, now: now) } ?? true
        return due ? refresh() : requestDeviceKey()
    }

    /// The refresh of ``Step/refresh`` ended.
    mutating func refreshed(_ outcome: RefreshOutcome<Tokens>) -> Step {
        guard case .refreshing = phase else { return inconsistency("refreshed in the wrong phase") }
        switch outcome {
        case .refreshed(let tokens):
            session = tokens.stored()
            return requestDeviceKey()
        case .refreshTokenRejected:
            // The grant is gone at the provider: a disconnect that completed before a relaunch ends
            // it exactly so. Nothing is left to disconnect.
            phase = .wiping
            return .wipe
        case .providerFailed(let error):
            return failed(error)
        case .storageFailed(let error):
            return finish(.storage(error))
        case .notSignedIn:
            return clearJournal(then: .cannotTell(.nothingStored))
        case .idTokenRejected(let failure):
            return clearJournal(then: .cannotTell(.refreshedIDTokenRejected(failure)))
        case .refreshTokenMissing:
            return clearJournal(then: .cannotTell(.expiredWithoutRefreshToken))
        case .anotherAccount:
            return clearJournal(then: .cannotTell(.anotherAccountInStore))
        case .dpopKeyUnavailable:
            return clearJournal(then: .cannotTell(.dpopKeyUnavailable))
        case .inconsistent(let what):
            return finish(.inconsistent(what))
        }
    }

    /// The device-key source answered.
    mutating func deviceKeyAnswered(_ result: Result<Secret, ProviderError>) -> Step {
        guard case .requestingDeviceKey = phase else { return inconsistency("a device key arrived in the wrong phase") }
        switch result {
        case .success(let key):
            phase = .disconnecting
            return .disconnect(deviceKey: key)
        case .failure(let error) where error.status == 401 && !refreshed:
            // The stored access token was revoked (the disconnect may already have happened):
            // refresh once and ask again.
            return refresh()
        case .failure(let error):
            return failed(error)
        }
    }

    /// The provider answered the disconnect (2xx and 404 are success).
    mutating func disconnectAnswered(_ result: Result<Void, ProviderError>) -> Step {
        guard case .disconnecting = phase else { return inconsistency("a disconnect answer arrived in the wrong phase") }
        switch result {
        case .success:
            phase = .wiping
            return .wipe
        case .failure(let error):
            return failed(error)
        }
    }

    /// The wipe of ``Step/wipe`` was written (or could not be).
    mutating func wiped(_ result: Result<Void, CredentialStoreError>) -> Step {
        guard case .wiping = phase else { return inconsistency("wiped in the wrong phase") }
        if case .failure(let error) = result { return finish(.storage(error)) }
        phase = .resetting
        return .resetDeviceCredential
    }

    /// The device credential was reset (its failure changes nothing: the account is gone).
    mutating func deviceCredentialReset() -> Step {
        guard case .resetting = phase else { return inconsistency("reset in the wrong phase") }
        return finish(.confirmed(subject: session?.subject))
    }

    /// The journal of ``Step/clearJournal`` was written (or could not be). The outcome stands
    /// either way: the account is kept, and a journal that could not be cleared only means that a
    /// relaunch asks the provider again, which answers as it did.
    mutating func journalCleared(_ result: Result<Void, CredentialStoreError>) -> Step {
        guard case .clearingJournal(let outcome) = phase else { return inconsistency("journal cleared in the wrong phase") }
        return finish(outcome)
    }

    // MARK: - Helpers

    private mutating func refresh() -> Step {
        refreshed = true
        phase = .refreshing
        return .refresh
    }

    private mutating func requestDeviceKey() -> Step {
        phase = .requestingDeviceKey
        return .requestDeviceKey(accessToken: session?.accessToken ?? Secret(""))
    }

    private mutating func failed(_ error: ProviderError) -> Step {
        switch error.disposition(in: .disconnect) {
        case .transient: return finish(.transient(error))
        case .permanent: return clearJournal(then: .refused(status: error.status ?? 0))
        }
    }

    private mutating func clearJournal(then outcome: DisconnectOutcome) -> Step {
        guard isJournaled else { return finish(outcome) }
        phase = .clearingJournal(then: outcome)
        return .clearJournal
    }

    /// Our own bug: an answer in the wrong phase. A debug build stops here; a release build ends
    /// the attempt, and the session stops.
    private mutating func inconsistency(_ what: String) -> Step {
        assertionFailure("DisconnectProcedure: \(what)")
        return finish(.inconsistent(what))
    }

    private mutating func finish(_ outcome: DisconnectOutcome) -> Step {
        phase = .finished
        return .finish(outcome)
    }
}
