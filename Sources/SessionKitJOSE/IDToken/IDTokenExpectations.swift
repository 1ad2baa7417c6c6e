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
    /// Accept a token without `kid` when the key set holds exactly one RS256 verification key.
    public var allowMissingKeyID: Bool
    /// The `max_age` sent with the authorization request, in seconds; nil when none was sent.
    /// With it, a sign-in's token must carry `auth_time`, no older than `max_age` plus ``skew``.
    public var maxAge: Double?
    /// The `acr` values requested as essential; empty when none were. With them, a sign-in's
    /// token must carry an `acr` that is one of them.
    public var requiredACRValues: [String]

    /// Expectations with the defaults: 60 s skew, `kid` required, no `max_age`, no essential `acr`.
    public init(
        issuer: String, clientID: String, nonce: String? = nil, accessToken: String? = nil, skew: Double = 60,
        allowMissingKeyID: Bool = false, maxAge: Double? = nil, requiredACRValues: [String] = []
    ) {
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
