/// Why a UserInfo response (OpenID Connect Core §5.3) was not accepted.
///
/// Codes follow the ID-token ones. The description is the code alone: it never contains a claim
/// value or the access token.
@nonexhaustive
public enum UserInfoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not one strict JSON object, is too large, or a standard claim has the wrong type.
    case malformed
    /// The response has no `sub`, or an empty one (§5.3.2: `sub` is always returned).
    case missingClaim
    /// The response's `sub` differs from the verified id_token's (§5.3.2): its claims belong to
    /// someone else and must not be used.
    case subjectMismatch
    /// A signed response (`application/jwt`, §5.3.2), or an aggregated claim set naming the
    /// issuer (§5.6.2), whose signature or `alg` does not verify with the issuer's keys.
    case badSignature
    /// A signed response or aggregated claim set from the issuer whose key is not in its key set
    /// (no `kid` with several keys, or an unknown `kid`).
    case unknownKey
    /// A signed response whose `iss` is not the issuer.
    case issuerMismatch
    /// A signed response whose `aud` does not contain the client id.
    case audienceMismatch

    /// The stable code, e.g. `sub_mismatch`.
    public var code: String {
        switch self {
        case .malformed: "malformed"
        case .missingClaim: "missing_claim"
        case .subjectMismatch: "sub_mismatch"
        case .badSignature: "bad_signature"
        case .unknownKey: "unknown_kid"
        case .issuerMismatch: "iss_mismatch"
        case .audienceMismatch: "aud_mismatch"
        }
    }

    /// The stable code.
    public var description: String { code }
}
