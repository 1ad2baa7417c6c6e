/// Whether a session sender-constrains its tokens with DPoP (RFC 9449), set in
/// ``SessionConfiguration/dpop``.
///
/// With DPoP on, every sign-in (browser, device code, guest) makes one P-256 key for the session,
/// binds the authorization code (`dpop_jkt`) and the tokens to it, and keeps the key with the
/// session's record; each token, revocation, device authorization and UserInfo request carries a
/// fresh proof. Once a session's tokens were issued DPoP-bound, a refresh answered with `Bearer` is
/// refused as a downgrade (``DPoPFailure/Code/downgraded``), whatever the policy.
public struct DPoPPolicy: Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case off
        case whenSupported
        case required
    }

    private let kind: Kind

    /// No DPoP: no key is made, tokens are `Bearer`. A session stored with a key still uses it
    /// until it ends, so turning DPoP off never strands a bound refresh token.
    public static let off = DPoPPolicy(kind: .off)
    /// DPoP when the provider's discovery document lists ES256 in
    /// `dpop_signing_alg_values_supported`; a provider that answers the sign-in with `Bearer`
    /// tokens is accepted (their refresh token is still presented with proofs).
    public static let whenSupported = DPoPPolicy(kind: .whenSupported)
    /// DPoP always: a token response whose `token_type` is not `DPoP` is an error
    /// (``DPoPFailure/Code/bearerWhereRequired``).
    public static let required = DPoPPolicy(kind: .required)

    /// `off`, `whenSupported` or `required`.
    public var description: String {
        switch kind {
        case .off: "off"
        case .whenSupported: "whenSupported"
        case .required: "required"
        }
    }

    /// What this policy asks of `provider`: `nil` when no key is made, else whether a `Bearer`
    /// token response is accepted.
    package func requirement(for provider: ProviderConfiguration) -> DPoPMiddleware.Requirement? {
        switch kind {
        case .off:
            return nil
        case .required:
            return .required
        case .whenSupported:
            guard provider.dpopSigningAlgorithms?.contains("ES256") == true else { return nil }
            return .whenIssued
        }
    }
}
