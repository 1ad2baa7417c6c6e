/// What an ID token must say to be accepted: who issued it, for whom, and in answer to what.
public struct IDTokenExpectations: Sendable, Equatable {
    /// The exact `iss` value required.
    public var issuer: String
    /// The client ID that `aud` must contain (and `azp` must equal when present).
    public var clientID: String
    /// The nonce sent with the authorization request; nil when none was sent.
    public var nonce: String?
    /// The access token delivered alongside, to check `at_hash` against; nil when not at hand.
    public var accessToken: String?
    /// Clock skew tolerated on `exp`, `iat` and `nbf`, in seconds.
    public var skew: Double
    /// Accept a token without `kid` when the key set holds exactly one verification key for the
    /// token's `alg`.
    public var allowMissingKeyID: Bool
    /// The `max_age` sent with the authorization request, in seconds; nil when none was sent.
    /// With it, a sign-in's token must carry `auth_time`, no older than `max_age` plus ``skew``.
    public var maxAge: Double?
    /// The `acr` values requested as essential; empty when none were. With them, a sign-in's
    /// token must carry an `acr` that is one of them.
    public var requiredACRValues: [String]
    /// The signature algorithms the provider may sign with (its discovery document's
    /// `id_token_signing_alg_values_supported`, among those this module verifies); a token with
    /// any other `alg` is `bad_signature`. RS256 alone by default, as on the 1pass.dev profile.
    public var algorithms: Set<JWSAlgorithm>

    /// Expectations with the defaults: 60 s skew, `kid` required, no `max_age`, no essential
    /// `acr`, RS256 only.
    public init(
        issuer: String, clientID: String, nonce: String? = nil, accessToken: String? = nil, skew: Double = 60,
        allowMissingKeyID: Bool = false, maxAge: Double? = nil, requiredACRValues: [String] = [],
        algorithms: Set<JWSAlgorithm> = [.rs256]
    ) {
        self.algorithms = algorithms
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.accessToken = accessToken
        self.skew = skew
        self.allowMissingKeyID = allowMissingKeyID
        self.maxAge = maxAge
        self.requiredACRValues = requiredACRValues
    }
}
