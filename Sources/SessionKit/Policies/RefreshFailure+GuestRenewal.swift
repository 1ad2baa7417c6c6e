import SessionKitCore

extension RefreshFailure {
    /// How a guest key renewal's failure reaches the machine: a failure that may pass is retried
    /// on the refresh policy; a refused secret (after the one fresh bootstrap), a refusal or a
    /// store that could not keep the credential ends the guest session.
    init(guestRenewal error: SessionError, attempt: Int, policy: RetryPolicy, random: inout some RandomNumberGenerator) {
        switch error.kind {
        case .guestBootstrapFailed(let bootstrap) where bootstrap.isTransient:
            let retryAfter: Duration? = if case .unavailable(_, let after) = bootstrap { after } else { nil }
            self = .transient(error, retryIn: policy.delay(afterAttempt: attempt, retryAfter: retryAfter, using: &random))
        case .guestBootstrapFailed(.cancelled):
            // Superseded (the machine has moved on and drops it) or cancelled with the session.
            self = .transient(error, retryIn: nil)
        case .guestBootstrapFailed(.storage(let storage)):
            self = .permanent(.storage(storage))
        case .guestBootstrapFailed(.inconsistent(let what)):
            self = .inconsistent(what)
        default:
            self = .permanent(error)
        }
    }
}
