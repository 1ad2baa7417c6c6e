/// A misbehaviour a ``SimulatedProvider`` can be scripted to show on one endpoint for its next calls.
///
/// Faults stand in for the answer the endpoint would have given: the provider's state does not
/// change, except for ``timeoutAfterProcessing``, ``slow(_:)`` and ``tamperedIDToken(_:)``,
/// which process the request normally first.
@nonexhaustive
public enum SimulatedProviderFault: Sendable, Equatable, CustomStringConvertible {
    /// The request is lost: the caller waits the configured deadline on the injected clock,
    /// then gets `TransportError.timedOut`.
    case timeout
    /// The request is processed (a refresh token may have rotated), but the response is lost:
    /// the caller waits the configured deadline, then gets `TransportError.timedOut`.
    case timeoutAfterProcessing
    /// The connection fails at once with `TransportError.connectionFailed`.
    case connectionFailure
    /// A server error with the given 5xx status, optionally with `Retry-After` (seconds).
    case serverError(status: Int = 503, retryAfterSeconds: Int? = nil)
    /// `429 Too Many Requests` with `Retry-After` in seconds.
    case rateLimited(retryAfterSeconds: Int)
    /// `400 {"error":"invalid_grant"}`, whatever was presented.
    case invalidGrant
    /// `401`, with `WWW-Authenticate` on Bearer endpoints.
    case unauthorized
    /// `403 Forbidden`.
    case forbidden
    /// `404 Not Found`.
    case notFound
    /// `200` with a truncated JSON body.
    case malformedJSON
    /// Any status with exactly this body (empty, unparsable, an unknown error): a provider that
    /// bends RFC 6749 §5.2.
    case rawAnswer(status: Int, body: String)
    /// The request is processed at once; the response arrives after the given delay on the injected clock.
    case slow(Duration)
    /// The next token response carries an id_token altered as described (token endpoint only;
    /// elsewhere the call is answered normally).
    case tamperedIDToken(IDTokenTampering)

    /// How an id_token in a token response is altered.
    @nonexhaustive
    public enum IDTokenTampering: Sendable, Equatable, CustomStringConvertible {
        /// A correctly built token whose signature no longer matches.
        case badSignature
        /// A validly signed token for another subject.
        case subject(String)
        /// A validly signed token for another audience.
        case audience(String)
        /// A validly signed token from another issuer.
        case issuer(String)
        /// A validly signed token with another nonce.
        case nonce(String)
        /// A validly signed token that expired an hour ago.
        case expired
        /// A token signed by the current key but naming another `kid` in its header.
        case keyID(String)
        /// A token signed by the current key with no `kid` in its header (OpenID Connect Core §10.1).
        case noKeyID
        /// A validly signed token issued an hour in the future (`iat`).
        case issuedInFuture
        /// A validly signed token without `iat`.
        case missingIssuedAt
        /// An unsigned token: `alg` `none`, an empty signature.
        case unsigned
        /// A validly signed token for the client and another audience, with this `azp`.
        case authorizedParty(String)
        /// A validly signed token whose `at_hash` belongs to another access token.
        case accessTokenHash

        /// A short name for logs; never the claim value itself.
        public var description: String {
            switch self {
            case .badSignature: "badSignature"
            case .subject: "subject"
            case .audience: "audience"
            case .issuer: "issuer"
            case .nonce: "nonce"
            case .expired: "expired"
            case .keyID: "keyID"
            case .noKeyID: "noKeyID"
            case .issuedInFuture: "issuedInFuture"
            case .unsigned: "unsigned"
            case .missingIssuedAt: "missingIssuedAt"
            case .authorizedParty: "authorizedParty"
            case .accessTokenHash: "accessTokenHash"
            }
        }
    }

    /// A short name for logs and test output.
    public var description: String {
        switch self {
        case .timeout: "timeout"
        case .timeoutAfterProcessing: "timeoutAfterProcessing"
        case .connectionFailure: "connectionFailure"
        case .serverError(let status, _): "serverError(\(status))"
        case .rateLimited(let seconds): "rateLimited(retryAfter: \(seconds)s)"
        case .invalidGrant: "invalidGrant"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "notFound"
        case .malformedJSON: "malformedJSON"
        case .rawAnswer(let status, let body): "rawAnswer(\(status), \(body.count) bytes)"
        case .slow(let delay): "slow(\(delay))"
        case .tamperedIDToken(let tampering): "tamperedIDToken(\(tampering))"
        }
    }
}
