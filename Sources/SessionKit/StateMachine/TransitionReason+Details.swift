extension TransitionReason {
    /// The `sub` the reason names: the verified, restored, identified or guest subject.
    public var subject: String? {
        switch kind {
        case .verified(let subject), .restored(let subject), .restoredDue(let subject, _), .identifiedByUserInfo(let subject),
            .guestStarted(let subject, _):
            subject
        default: nil
        }
    }

    /// How many waiting callers a refresh, a renewal or a due token served or holds.
    public var callers: Int? {
        switch kind {
        case .refreshed(let callers), .refreshedIdentityKept(let callers), .tokenDue(_, let callers), .guestKeyRenewed(let callers, _):
            callers
        default: nil
        }
    }

    /// In how many seconds the access token is due (``Code/tokenDue``, ``Code/restoredDue``), or
    /// the device code expires (``Code/deviceCodeIssued``).
    public var inSeconds: Int? {
        switch kind {
        case .tokenDue(let seconds, _), .restoredDue(_, let seconds), .deviceCodeIssued(let seconds): seconds
        default: nil
        }
    }

    /// How long the session waits before its next attempt (``Code/retrying``,
    /// ``Code/devicePollDeferred``).
    public var delay: Duration? {
        switch kind {
        case .retrying(_, let seconds, _), .devicePollDeferred(let seconds, _): .milliseconds(Int64((seconds * 1000).rounded()))
        default: nil
        }
    }

    /// Which attempt failed, for ``Code/retrying`` (1 for the first).
    public var attempt: Int? {
        guard case .retrying(let attempt, _, _) = kind else { return nil }
        return attempt
    }

    /// The failure behind the reason, with its own code, category and typed details: a refused or
    /// failed exchange, refresh, store, presentation, revocation, disconnect or bootstrap.
    public var error: SessionError? {
        switch kind {
        case .exchangeFailed(let error), .refreshFailedTransiently(let error), .retrying(_, _, let error),
            .signedOutLocallyOnly(let error), .deviceSignInFailed(let error), .guestBootstrapFailed(let error):
            error
        case .authorizationDenied(let error): .authorizationDenied(error)
        case .callbackRejected(let refusal): .callbackRejected(refusal)
        case .verificationFailed(let error): .verificationFailed(error)
        case .storedSessionNotRestored(let mismatch): .storedSessionForeign(mismatch)
        case .dpopKeyUnavailable(let loss): .dpopKeyUnavailable(loss)
        case .refreshRejected(let answer): answer.map { .provider($0) } ?? .refreshTokenRejected
        case .storageFailed(let error), .notJournaled(let error): .storage(error)
        case .presentationFailed(let error): .presentationFailed(error)
        case .accountDeletionUnavailable(let operation): .unsupported(operation)
        case .accountDeletionRefused(let status): .accountDeletionRefused(status: status)
        case .anotherAccountInStore: .anotherAccountInStore
        case .sessionExpired: .sessionExpired
        case .deviceCodeExpired: .deviceCodeExpired
        case .handoffTimedOut: .handoffTimedOut
        default: nil
        }
    }

    /// How ending the provider's browser session went, for ``Code/providerSessionNotEnded``.
    public var providerLogout: ProviderLogoutOutcome? {
        guard case .providerSessionNotEnded(let outcome) = kind else { return nil }
        return outcome
    }

    /// Whether a guest start or renewal made a new anonymous user because the stored device
    /// secret was refused.
    public var startedOver: Bool {
        switch kind {
        case .guestStarted(_, let startedOver), .guestKeyRenewed(_, let startedOver): startedOver
        default: false
        }
    }
}
