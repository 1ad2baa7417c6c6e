/// A JWS signature algorithm (RFC 7518 §3.1), named as the `alg` header member names it.
///
/// Verification supports ``rs256`` and ``es256``; an application says which of them a provider's
/// tokens may use (``IDTokenExpectations/algorithms``), and a key is only ever used for the
/// algorithm its type and members allow, so a token can never choose how it is checked.
public struct JWSAlgorithm: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The `alg` value, e.g. "RS256".
    public let rawValue: String

    /// An algorithm by its `alg` value; any value is representable, only the two below verify.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256.
    public static let rs256 = JWSAlgorithm(rawValue: "RS256")
    /// ECDSA on P-256 with SHA-256, the signature as `r || s` (RFC 7518 §3.4).
    public static let es256 = JWSAlgorithm(rawValue: "ES256")

    /// The `alg` value.
    public var description: String { rawValue }
}
