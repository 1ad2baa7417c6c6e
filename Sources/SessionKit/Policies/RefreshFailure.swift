import SessionKitCore

/// Why a refresh attempt failed, classified before it reaches the machine.
enum RefreshFailure: Sendable, Equatable {
    /// May pass; `retryIn` is the backoff delay, or `nil` when the retry policy gave up.
    case transient(SessionError, retryIn: Duration?)
    /// The session is over: id_token rejected, store failed.
    case permanent(SessionError)
    /// The session is over: the provider refused the refresh token; `answer` says how (status,
    /// error code or "empty body"), never a value.
    case rejected(answer: ProviderError)
    /// The refresh procedure found itself inconsistent (a bug in SessionKit): the session stops.
    case inconsistent(String)
}

extension RefreshFailure {
    /// How a refresh procedure's failed outcome reaches the machine; `nil` for a refresh that succeeded.
    ///
    /// A failure that may pass on its own (no response, 408, 429, 5xx; ``ProviderError/isTransient``)
    /// is retried after the policy's backoff for `attempt`; one that is not the refresh token's fault
    /// but will not pass by waiting (403, 404) fails the waiting callers at once and keeps the
    /// session; a refused refresh token, a rejected id_token or a store that could not keep a
    /// rotated token ends the session.
    init?<Tokens>(
        _ outcome: RefreshOutcome<Tokens>, attempt: Int, policy: RetryPolicy, random: inout some RandomNumberGenerator
    ) {
        switch outcome {
        case .refreshed: return nil
        case .notSignedIn: self = .permanent(.notSignedIn)
        case .refreshTokenRejected(let refusal): self = .rejected(answer: refusal)
        case .idTokenRejected(let failure): self = .permanent(.verificationFailed(failure))
        case .storageFailed(let error): self = .permanent(.storage(error))
        case .anotherAccount: self = .permanent(.anotherAccountInStore)
        case .dpopKeyUnavailable(let loss): self = .permanent(.dpopKeyUnavailable(loss))
        case .refreshTokenMissing: self = .permanent(.sessionExpired)
        case .inconsistent(let what): self = .inconsistent(what)
        case .providerFailed(let error):
            let delay = error.isTransient ? policy.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random) : nil
            self = .transient(.provider(error), retryIn: delay)
        }
    }
}

extension ServerOperationFailure {
    /// How a failed revocation or disconnect reaches the machine; a transient one waits the
    /// policy's backoff for `attempt` (never less than `Retry-After`).
    static func transient(_ error: ProviderError, attempt: Int, policy: RetryPolicy, random: inout some RandomNumberGenerator) -> Self {
        .transient(error, retryIn: policy.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random) ?? .zero)
    }

    /// How a disconnect procedure's failed outcome reaches the machine; `nil` when it was confirmed.
    init?(_ outcome: DisconnectOutcome, attempt: Int, policy: RetryPolicy, random: inout some RandomNumberGenerator) {
        switch outcome {
        case .confirmed: return nil
        case .transient(let error): self = .transient(error, attempt: attempt, policy: policy, random: &random)
        case .refused(let status): self = .refused(status: status)
        case .cannotTell(let why): self = .cannotTell(why)
        case .storage(let error): self = .storage(error)
        case .inconsistent(let what): self = .inconsistent(what)
        }
    }
}

/// Why a server-first operation (revoke, disconnect) failed, classified before it reaches the machine.
enum ServerOperationFailure: Sendable, Equatable {
    /// May pass; retried after `retryIn`.
    case transient(ProviderError, retryIn: Duration)
    /// The provider refused (401/403 on disconnect): credentials are kept.
    case refused(status: Int)
    /// The provider cannot be told (no endpoint, or a permanent refusal of a revocation).
    case cannotTell(UnsupportedOperation)
    /// The store failed while journaling or completing.
    case storage(CredentialStoreError)
    /// The procedure found itself inconsistent (a bug in SessionKit): the session stops.
    case inconsistent(String)
}

extension ProviderError {
    /// What the provider answered, for a reason: status and error code, or the status and
    /// "empty body" / "no error code"; never the body itself.
    var answerSummary: String {
        switch self {
        case .http(let status, let error?, _, _): "\(status) \(error)"
        case .http(let status, nil, _, let excerpt) where excerpt.isEmpty: "\(status), empty body"
        case .http(let status, nil, _, _): "\(status), no error code"
        case .transport, .invalidResponse, .dpop, .clientRegistration: summary
        }
    }
}
