/// A DPoP failure SessionKit itself found in the provider's answer (RFC 9449), carried by
/// ``ProviderError/dpop(_:)``. Refusals the provider sends (`invalid_dpop_proof`, and
/// `use_dpop_nonce` without a new nonce) stay
/// ``ProviderError/http(status:error:retryAfterSeconds:excerpt:)`` with their code; a
/// `use_dpop_nonce` that carried a new nonce is ``Code/useNonce``, the signal to send once more.
public struct DPoPFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which failure; a struct of static members, so a later one breaks no `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The stable identifier.
        public let rawValue: String

        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The session's tokens were DPoP-bound and a refresh was answered with `token_type`
        /// `Bearer`: the provider stopped sender-constraining mid-session. The answer is refused,
        /// never taken as a silent downgrade; the session keeps its tokens.
        public static let downgraded = Code("dpop_downgraded")
        /// The policy is ``DPoPPolicy/required`` and a token response said `Bearer`.
        public static let bearerWhereRequired = Code("dpop_bearer_where_required")
        /// A `cnf.jkt` in the token response or the JWT access token names another key.
        public static let thumbprintMismatch = Code("dpop_thumbprint_mismatch")
        /// A refresh was refused with `use_dpop_nonce`, and its one retry with the provider's
        /// nonce, presenting the same refresh token, was answered `invalid_grant`. Most likely the
        /// provider spent the token on the request it refused (RFC 9449 §8 has it refuse before
        /// using the grant); a token that was already dead answers the same, and the two cannot be
        /// told apart from here. Either way the refresh token is dead: the session ends with this
        /// reason, keeps nothing it cannot use, and never retries.
        public static let refreshTokenSpentByNonceRetry = Code("dpop_refresh_token_spent_by_nonce_retry")

        /// The server refused the proof with `use_dpop_nonce` (RFC 9449 §8, §9) and gave a new
        /// `DPoP-Nonce`, now kept in the middleware's ``DPoPNonceCache``: the request may be sent
        /// once more, with a fresh proof carrying it. ``DPoPMiddleware`` never resends on its own;
        /// the session makes that one retry a visible step of each request it sends (the refresh
        /// procedure's, the code exchange's, the revocation's), and a second demand is the
        /// provider's `use_dpop_nonce` answer, never a verdict on the grant. A caller of
        /// ``ProviderClient`` with a ``DPoPMiddleware`` in its chain retries the same way.
        public static let useNonce = Code("dpop_use_nonce")

        /// The key the refresh token is bound to is gone or is another key (a reset Keychain, a
        /// record restored elsewhere). The session no longer reports a missing key with this
        /// code: a refresh that finds its key gone ends as a restore does, with
        /// ``SessionError/dpopKeyUnavailable(_:)`` and its ``DPoPKeyLoss``; the code stays for apps
        /// that match on it.
        public static let keyUnavailable = Code("dpop_key_unavailable")

        /// The stable identifier.
        public var description: String { rawValue }
    }

    /// Which failure.
    public let code: Code

    /// A failure of `code`.
    public init(_ code: Code) {
        self.code = code
    }

    /// The stable identifier.
    public var description: String { code.rawValue }
}
