public import SessionKitCore
public import SessionKitJOSE

extension SessionError {
    /// The provider's answer, for ``Code/provider``.
    public var providerError: ProviderError? {
        guard case .provider(let error) = kind else { return nil }
        return error
    }

    /// Which check the id_token failed, for ``Code/verificationFailed``.
    public var verificationError: IDTokenError? {
        guard case .verificationFailed(let error) = kind else { return nil }
        return error
    }

    /// How the credential store failed, for ``Code/storage`` (and a guest bootstrap that could not
    /// keep its credential).
    public var storageError: CredentialStoreError? {
        switch kind {
        case .storage(let error), .guestBootstrapFailed(.storage(let error)): error
        default: nil
        }
    }

    /// What the presenter reported, for ``Code/presentationFailed``.
    public var handoffError: HandoffError? {
        guard case .presentationFailed(let error) = kind else { return nil }
        return error
    }

    /// Why the callback was refused, for ``Code/callbackRejected``.
    public var callbackRefusal: CallbackRefusal? {
        guard case .callbackRejected(let refusal) = kind else { return nil }
        return refusal
    }

    /// The callback's OAuth `error` code (`access_denied` …), for ``Code/authorizationDenied``.
    public var authorizationError: String? {
        guard case .authorizationDenied(let error) = kind else { return nil }
        return error
    }

    /// What cannot be done, for ``Code/unsupported``.
    public var unsupportedOperation: UnsupportedOperation? {
        guard case .unsupported(let operation) = kind else { return nil }
        return operation
    }

    /// What the stored session was written for instead, for ``Code/storedSessionForeign``.
    public var storedSessionMismatch: StoredSessionMismatch? {
        guard case .storedSessionForeign(let mismatch) = kind else { return nil }
        return mismatch
    }

    /// Why the DPoP key could not be used and which account it was, for ``Code/dpopKeyUnavailable``.
    public var dpopKeyLoss: DPoPKeyLoss? {
        guard case .dpopKeyUnavailable(let loss) = kind else { return nil }
        return loss
    }

    /// The HTTP status the provider answered with, when the failure is its answer
    /// (``Code/provider`` with a response, ``Code/accountDeletionRefused``, a guest bootstrap refused).
    public var httpStatus: Int? {
        switch kind {
        case .provider(let error): error.status
        case .accountDeletionRefused(let status): status
        case .guestBootstrapFailed(.rejected(let status, _)), .guestBootstrapFailed(.unavailable(let status, _)): status
        default: nil
        }
    }

    /// The rule the request options break, for ``Code/invalidRequestOptions``.
    public var requestOptionsError: AuthorizationRequestOptionsError? {
        guard case .invalidRequestOptions(let error) = kind else { return nil }
        return error
    }

    /// Why the UserInfo answer was refused, for ``Code/userInfoRejected``.
    public var userInfoError: UserInfoError? {
        guard case .userInfoRejected(let error) = kind else { return nil }
        return error
    }

    /// How the guest bootstrap failed, for ``Code/guestBootstrapFailed``.
    public var guestBootstrapError: AnonymousBootstrapError? {
        guard case .guestBootstrapFailed(let error) = kind else { return nil }
        return error
    }
}
