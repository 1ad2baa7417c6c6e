/// What a signed UserInfo response (`application/jwt`, OpenID Connect Core §5.3.2) and an
/// aggregated claim set from the issuer (§5.6.2) are held to: the issuer's keys and algorithms,
/// its identifier as `iss`, the client among `aud`.
public struct UserInfoExpectations: Sendable, Hashable {
    /// The issuer identifier: a signed response's `iss`, and the claims provider whose aggregated
    /// claims are verified.
    public var issuer: String
    /// The client id a signed response's `aud` must contain.
    public var clientID: String
    /// The algorithms the provider signs with (RS256, ES256).
    public var algorithms: Set<JWSAlgorithm>
    /// Whether a JWS without `kid` is checked against the only key for its `alg` (Core §10.1).
    public var allowMissingKeyID: Bool

    /// Expectations from their values.
    public init(issuer: String, clientID: String, algorithms: Set<JWSAlgorithm> = [.rs256], allowMissingKeyID: Bool = false) {
        self.issuer = issuer
        self.clientID = clientID
        self.algorithms = algorithms
        self.allowMissingKeyID = allowMissingKeyID
    }
}
