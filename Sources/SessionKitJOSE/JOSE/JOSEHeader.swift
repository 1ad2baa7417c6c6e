/// The protected header of a compact JWS, as far as this module reads it.
///
/// Parsing rejects a `crit` member (no extension is understood, RFC 7515 §4.1.11) and requires
/// a string `alg`. Key-carrying members (`jwk`, `jku`, `x5u`, `x5c`) are deliberately not
/// exposed: keys come only from the provider's JWKS.
public struct JOSEHeader: Sendable, Equatable {
    /// The `alg` member, e.g. "RS256". Any value parses; verification accepts only the algorithms it is told to (RS256, ES256).
    public let algorithm: String
    /// The `kid` member, naming the key in the provider's JWKS.
    public let keyID: String?
    /// The `typ` member, e.g. "JWT".
    public let type: String?

    /// The decoded header bytes (strict JSON), kept for re-encoding in diagnostics.
    let bytes: [UInt8]

    /// Header member names with their hashes computed once.
    private enum Keys {
        static let crit = JSONKey("crit")
        static let alg = JSONKey("alg")
        static let kid = JSONKey("kid")
        static let typ = JSONKey("typ")
    }

    init(json bytes: [UInt8]) throws(JOSEError) {
        var algorithm: String?
        var keyID: String?
        var type: String?
        var critical = false
        try bytes.withUnsafeBufferPointer { (buffer) throws(JOSEError) in
            try JSONParser.scanObject(buffer, maximumDepth: 16) { (name, parser) throws(JOSEError) in
                let input = parser.buffer
                if name.matches(Keys.alg, in: input) {
                    guard case .string(let value) = try parser.parseValue() else { throw .invalidHeader }
                    algorithm = value
                } else if name.matches(Keys.kid, in: input) {
                    guard case .string(let value) = try parser.parseValue() else { throw .invalidHeader }
                    keyID = value
                } else if name.matches(Keys.typ, in: input) {
                    guard case .string(let value) = try parser.parseValue() else { throw .invalidHeader }
                    type = value
                } else {
                    critical = critical || name.matches(Keys.crit, in: input)
                    try parser.skipValue()
                }
            }
        }
        guard !critical else { throw .criticalHeader }
        guard let algorithm else { throw .invalidHeader }
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.bytes = bytes
    }
}
