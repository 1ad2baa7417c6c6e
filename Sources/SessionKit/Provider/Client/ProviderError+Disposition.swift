/// The calls to the provider whose failures the session classifies.
package enum ProviderOperation: String, Sendable, Hashable, CaseIterable {
    /// The authorization code exchange (RFC 6749 §4.1.3).
    case codeExchange
    /// A refresh (RFC 6749 §6).
    case refresh
    /// A refresh token's revocation (RFC 7009).
    case revocation
    /// The app disconnect (1pass.dev), and the device-key exchange that precedes it.
    case disconnect
}

/// What a failed call means for the session.
package enum ProviderErrorDisposition: String, Sendable, Hashable {
    /// It may pass: retry with backoff, keep every credential.
    case transient
    /// The provider answered for good: for a refresh the refresh token is dead; for a code
    /// exchange the sign-in failed; for a revocation the provider cannot be told; for a disconnect
    /// the provider refused it.
    case permanent
}

extension ProviderError {
    /// The one table that classifies every failed call to the provider.
    ///
    /// | answer | code exchange | refresh | revocation | disconnect |
    /// |---|---|---|---|---|
    /// | no response (connection, timeout, cancelled, oversize) | transient | transient | transient | transient |
    /// | 408, 429, 5xx | transient | transient | transient | transient |
    /// | 400, 401 with `invalid_dpop_proof` or `use_dpop_nonce` (RFC 9449 §7.1, §8) | transient | transient | transient | transient |
    /// | ``DPoPFailure/Code/useNonce`` (`use_dpop_nonce` with a new nonce, before its one retry) | transient | transient | transient | transient |
    /// | 400, 401 (any other body: `invalid_grant`, unknown, missing, unparsable) | permanent | permanent | permanent | permanent |
    /// | 403 | permanent | transient | permanent | permanent |
    /// | other 4xx | permanent | transient | permanent | permanent |
    /// | a success status with a body the protocol forbids | transient | transient | transient | transient |
    /// | ``DPoPFailure/Code/refreshTokenSpentByNonceRetry``, ``DPoPFailure/Code/keyUnavailable`` | permanent | permanent | permanent | permanent |
    /// | any other ``DPoPFailure`` (a downgrade, `Bearer` where required, another key's `jkt`) | permanent | transient | transient | transient |
    /// | ``ClientRegistrationError/Code/clientReplaced`` (the provider forgot the client; a new one is registered) | permanent | permanent | permanent | permanent |
    /// | any other ``ClientRegistrationError`` (renewing an expired secret failed) | transient | transient | transient | transient |
    ///
    /// A refresh is permanent only when the provider said the grant or the client is refused
    /// (RFC 6749 §5.2 answers with 400 or 401): anything else keeps the session, so a misbehaving
    /// proxy or a misrouted request never signs the person out. Of the transient answers, those
    /// that may pass on their own (``isTransient``: no response, 408, 429, 5xx) are retried with
    /// backoff; a 403, another 4xx or a refused DPoP proof fails the waiting callers at once and the
    /// next call tries again. A refused DPoP proof is about the proof (its key, its clock, its
    /// nonce), never the grant: the session keeps its refresh token, and no backoff repeats a proof
    /// the server has refused. A disconnect's 2xx and 404 are not
    /// failures (both confirm it), so they never reach this table.
    package func disposition(in operation: ProviderOperation) -> ProviderErrorDisposition {
        switch self {
        case .transport, .invalidResponse:
            return .transient
        case .dpop(let failure):
            // The spent refresh token is dead; any other DPoP failure refuses this answer only, and
            // the session keeps what it holds (a refresh fails at once, no backoff repeats it).
            if failure.code == .refreshTokenSpentByNonceRetry || failure.code == .keyUnavailable { return .permanent }
            // A nonce demand is about the proof, like the `use_dpop_nonce` answer it stands for.
            if failure.code == .useNonce { return .transient }
            return operation == .codeExchange ? .permanent : .transient
        case .clientRegistration(let error):
            // A replaced client's grants belong to the old client id: they are dead everywhere.
            // Any other failure to renew keeps every credential, and the next request tries again.
            return error.code == .clientReplaced ? .permanent : .transient
        case .http(let status, _, _, _):
            if isDPoPRefusal { return .transient }
            if status == 408 || status == 429 || (500...599).contains(status) { return .transient }
            if status == 400 || status == 401 { return .permanent }
            switch operation {
            case .refresh: return .transient
            case .codeExchange, .revocation, .disconnect: return .permanent
            }
        }
    }

    /// Whether the provider refused the request's DPoP proof rather than what it asked for: a 400
    /// or 401 with `invalid_dpop_proof` or `use_dpop_nonce` (RFC 9449 §7.1, §8), or the nonce
    /// demand ``DPoPFailure/Code/useNonce`` that stands for the latter.
    package var isDPoPRefusal: Bool {
        if case .dpop(let failure) = self { return failure.code == .useNonce }
        guard case .http(let status, let error?, _, _) = self, status == 400 || status == 401 else { return false }
        return error == "invalid_dpop_proof" || error == "use_dpop_nonce"
    }

    /// A stable identifier: `connection_failed`, `timed_out`, `http_503`, `invalid_response` …
    package var code: String {
        switch self {
        case .transport(.connectionFailed): "connection_failed"
        case .transport(.timedOut): "timed_out"
        case .transport(.responseTooLarge): "response_too_large"
        case .transport(.cancelled): "cancelled"
        case .http(let status, _, _, _): "http_\(status)"
        case .invalidResponse: "invalid_response"
        case .dpop(let failure): failure.code.rawValue
        case .clientRegistration(let error): "client_registration.\(error.code)"
        }
    }
}
