/// The protected header of a compact JWS, as far as this module reads it.
///
/// Parsing rejects a `crit` member (no extension is understood, RFC 7515 §4.1.11) and requires
/// a string `alg`. Key-carrying members (`jwk`, `jku`, `x5u`, `x5c`) are deliberately not
/// exposed: keys come only from the provider's JWKS.
public struct JOSEHeader: Sendable, Equatable {
    /// The `alg` member, e.g. "RS256". Any value parses; verification accepts only RS256.
    public let algorithm: String
    /// The `kid` member, naming the key in the provider's JWKS.
    public let keyID: String?
    /// The `typ` member, e.g. "JWT".
    public let type: String?

    /// The whole header object, for re-encoding in diagnostics.
    let object: JSONObject

    init(json bytes: [UInt8]) throws(JOSEError) {
        let object = try JSONParser.parseObject(bytes, maximumDepth: 16)
        guard object["crit"] == nil else { throw .criticalHeader }
        guard case .string(let algorithm)? = object["alg"] else { throw .invalidHeader }
        var keyID: String?
        switch object["kid"] {
        case nil: keyID = nil
        case .string(let value)?: keyID = value
        default: throw .invalidHeader
        }
        var type: String?
        switch object["typ"] {
        case nil: type = nil
        case .string(let value)?: type = value
        default: throw .invalidHeader
        }
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.object = object
    }
}
