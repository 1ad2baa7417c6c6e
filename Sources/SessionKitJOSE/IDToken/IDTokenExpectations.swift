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

    /// Expectations with the defaults: 60 s skew, `kid` required.
    public init(
        issuer: String, clientID: String, nonce: String? = nil, accessToken: String? = nil, skew: Double = 60,
        allowMissingKeyID: Bool = false
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.accessToken = accessToken
        self.skew = skew
        self.allowMissingKeyID = allowMissingKeyID
    }
}
