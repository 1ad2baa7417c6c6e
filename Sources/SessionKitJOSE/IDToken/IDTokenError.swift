/// Why an ID token was rejected, with the stable codes shared by the reference SDKs.
///
/// The description is the code alone: it never contains the token, a claim value or a key.
@nonexhaustive
public enum IDTokenError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The token or its claims could not be parsed, or `iat` / `nbf` lie in the future.
    case malformed
    /// The header has no `kid` and policy does not allow that.
    case missingKeyID
    /// No verification key for the header's `alg` in the set has the header's `kid`.
    case unknownKeyID
    /// `alg` is not one of the expected algorithms, or the signature does not verify.
    case badSignature
    /// `iss` differs from the expected issuer (or, on refresh, from the previous token's).
    case issuerMismatch
    /// `aud` does not contain the client ID, `azp` is missing or wrong, or (on refresh) `aud` changed.
    case audienceMismatch
    /// `exp` has passed, allowing for the skew.
    case expired
    /// `nonce` differs from the one sent with the authorization request.
    case nonceMismatch
    /// A required claim (`sub`, `exp`) is missing or empty.
    case missingClaim
    /// `at_hash` does not match the access token delivered with the ID token.
    case accessTokenHashMismatch
    /// On refresh, `sub` differs from the previous token's.
    case subjectMismatch
    /// `max_age` was requested but the token has no `auth_time` (OIDC Core §3.1.2.1).
    case missingAuthTime
    /// `auth_time` plus the requested `max_age` lies in the past, beyond the skew (§3.1.3.7).
    case authTimeTooOld
    /// Essential `acr` values were requested and the token's `acr` is none of them, or missing
    /// (OIDC Core §5.5.1.1).
    case acrMismatch
    /// A response that must carry an id_token has none (a refresh, when the configuration requires one).
    case missingIDToken

    /// The stable wire code, e.g. "unknown_kid".
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .missingKeyID: "missing_kid"
        case .unknownKeyID: "unknown_kid"
        case .badSignature: "bad_signature"
        case .issuerMismatch: "iss_mismatch"
        case .audienceMismatch: "aud_mismatch"
        case .expired: "expired"
        case .nonceMismatch: "nonce_mismatch"
        case .missingClaim: "missing_claim"
        case .accessTokenHashMismatch: "at_hash_mismatch"
        case .subjectMismatch: "sub_mismatch"
        case .missingAuthTime: "missing_auth_time"
        case .authTimeTooOld: "auth_time_too_old"
        case .acrMismatch: "acr_mismatch"
        case .missingIDToken: "missing_id_token"
        }
    }

    /// The stable code.
    public var description: String { code }
}
