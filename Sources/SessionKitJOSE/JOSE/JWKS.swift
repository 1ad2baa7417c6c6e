/// A JSON Web Key Set (RFC 7517 §5): the only place verification keys come from.
///
/// Decoding is tolerant of what it does not use — an EC, `oct` or encryption key, or an entry
/// with unexpected member types, is kept or skipped without failing the set — and strict about
/// the document itself (strict JSON, a `keys` array, a size cap). RSA keys usable for RS256
/// (see ``JWK/isRS256VerificationCandidate``, modulus at least 2048 bits) are parsed once, at
/// construction, and cached by `kid`, so verifying a token never rebuilds a key.
public struct JWKS: Sendable {
    /// Largest JWKS document accepted, in bytes.
    public static let maximumSize = 512 * 1024

    /// Every key the set holds that this module could read, usable for RS256 or not.
    public let keys: [JWK]

    /// RS256 verification keys by `kid`; the first usable key wins when a `kid` repeats.
    private let keysByID: [String: RSAPublicKey]

    /// Every usable RS256 verification key, with or without a `kid`.
    private let verificationKeys: [RSAPublicKey]

    /// Decodes a JWKS document. Throws for a document that is not strict JSON, is too large, or
    /// has no `keys` array; skips entries it does not understand.
    public init(jsonData: some Collection<UInt8>) throws(JOSEError) {
        guard jsonData.count <= Self.maximumSize else { throw .tooLarge }
        let object = try JSONParser.parseObject(Array(jsonData), maximumDepth: 16)
        guard case .array(let entries)? = object["keys"] else { throw .invalidJWKS }
        self.init(keys: entries.compactMap { $0.objectValue.flatMap(JWK.init(json:)) })
    }

    /// A set from keys in hand (a simulated provider's, or a cache's).
    public init(keys: [JWK]) {
        var keysByID: [String: RSAPublicKey] = [:]
        var verificationKeys: [RSAPublicKey] = []
        for jwk in keys where jwk.isRS256VerificationCandidate {
            guard let publicKey = try? jwk.rsaPublicKey() else { continue }
            verificationKeys.append(publicKey)
            if let kid = jwk.kid, keysByID[kid] == nil {
                keysByID[kid] = publicKey
            }
        }
        self.keys = keys
        self.keysByID = keysByID
        self.verificationKeys = verificationKeys
    }

    /// The cached RS256 verification key with exactly this `kid`, if the set has one.
    public func verificationKey(forKeyID keyID: String) -> RSAPublicKey? {
        keysByID[keyID]
    }

    /// How many keys in the set can verify RS256 signatures.
    public var verificationKeyCount: Int { verificationKeys.count }

    /// The only RS256 verification key, when the set has exactly one (for tokens without `kid`
    /// under an explicit policy).
    var soleVerificationKey: RSAPublicKey? {
        verificationKeys.count == 1 ? verificationKeys[0] : nil
    }

    /// The set as `{"keys":[...]}`, for serving from a simulated provider.
    public func jsonData() -> [UInt8] {
        Self.jsonData(of: keys)
    }

    /// `keys` as a set document, without building a verification key for any of them.
    package static func jsonData(of keys: [JWK]) -> [UInt8] {
        var root = JSONObject()
        _ = root.insert("keys", .array(keys.map { .object($0.jsonObject) }))
        return Array(JSONWriter.serialize(.object(root)).utf8)
    }
}
