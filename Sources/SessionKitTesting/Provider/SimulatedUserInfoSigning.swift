/// How a ``SimulatedProvider`` signs its UserInfo answers (OpenID Connect Core §5.3.2), when it does.
@nonexhaustive
public enum SimulatedUserInfoSigning: Sendable, Hashable {
    /// Correctly: the current key, `iss` the issuer, `aud` the client.
    case valid
    /// A correctly built answer whose signature no longer matches.
    case badSignature
    /// Signed, with another `iss`.
    case wrongIssuer
    /// Signed, for another client.
    case wrongAudience
}
