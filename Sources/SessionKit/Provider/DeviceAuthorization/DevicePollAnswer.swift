/// One answer of the token endpoint to a device code poll (RFC 8628 §3.5), classified for
/// `DevicePollPlanner`.
package enum DevicePollAnswer: Sendable, Equatable {
    /// The person approved: the token response (its id_token not yet verified).
    case tokens(TokenResponse)
    /// `authorization_pending`: no decision yet.
    case authorizationPending
    /// `slow_down`: no decision yet, and the interval grows by 5 s for every later poll.
    case slowDown
    /// `access_denied`: the person declined.
    case accessDenied
    /// `expired_token`: the device code expired before the person decided.
    case expiredToken
    /// No answer, or one worth retrying later (transport failure, timeout, 408, 429, 5xx, an
    /// undecodable success body), with the provider's `Retry-After` when it gave one.
    case transientFailure(retryAfter: Duration?)
    /// Any other error answer (`invalid_grant`, `invalid_client`, `unsupported_grant_type`, …):
    /// polling cannot succeed.
    case rejected(ProviderError)
    /// The poll was cancelled.
    case cancelled

    /// Classifies the outcome of ``ProviderClient/pollDeviceToken(_:)``.
    package init(_ result: Result<TokenResponse, ProviderError>) {
        switch result {
        case .success(let response):
            self = .tokens(response)
        case .failure(.transport(.cancelled)):
            self = .cancelled
        case .failure(let error):
            // The §3.5 codes come with 400; the same code with another status is not trusted to mean it.
            switch (error.status, error.oauthError) {
            case (400, "authorization_pending"?): self = .authorizationPending
            case (400, "slow_down"?): self = .slowDown
            case (400, "access_denied"?): self = .accessDenied
            case (400, "expired_token"?): self = .expiredToken
            default: self = error.isTransient ? .transientFailure(retryAfter: error.retryAfter) : .rejected(error)
            }
        }
    }
}
