/// An ID token whose signature and claims passed every check.
///
/// Only ``IDTokenValidator`` can create one, so code that holds a `VerifiedIDToken` knows the
/// checks ran; APIs that must not see unverified tokens take this type.
public struct VerifiedIDToken: Sendable {
    /// The verified claims.
    public let claims: IDTokenClaims
    /// The `kid` of the key that verified the signature; nil when the token had none and the
    /// missing-`kid` policy allowed it.
    public let keyID: String?
    // No public initializer: the memberwise one is internal, so only this module can create one.
}
