/// Why a JOSE object (compact JWS, its header, a JWKS, or the JSON inside them) was rejected.
///
/// The cases name the rule that was broken, never the offending bytes, so they are safe to log.
@nonexhaustive
public enum JOSEError: Error, Sendable, Equatable {
    /// Text that is not canonical unpadded base64url.
    case invalidBase64URL
    /// Not exactly three dot-separated segments, or an empty header or signature segment.
    case malformedJWS
    /// Input larger than the cap for its kind (a compact JWS is capped at 16 KiB).
    case tooLarge
    /// Bytes that are not one strict JSON value (RFC 8259, UTF-8, nothing trailing).
    case invalidJSON
    /// JSON nested deeper than the parser allows.
    case nestingTooDeep
    /// A JSON object that names the same member twice.
    case duplicateMember
    /// A JSON value where an object was required (a JOSE header, a JWKS, a claims set).
    case notAnObject
    /// A JOSE header with a `crit` member: no extension is understood, so none may be critical.
    case criticalHeader
    /// A JOSE header without a string `alg`, or with a known member of the wrong type.
    case invalidHeader
    /// A JWKS without a `keys` array.
    case invalidJWKS
}
