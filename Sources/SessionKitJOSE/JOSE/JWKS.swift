/// A JSON Web Key Set (RFC 7517 §5): the only place verification keys come from.
///
/// Decoding is tolerant of what it does not use — an `oct` or encryption key, an EC key on
/// another curve, or an entry with unexpected member types, is kept or skipped without failing
/// the set — and strict about the document itself (strict JSON, a `keys` array, a size cap).
/// Keys usable for RS256 (see ``JWK/isRS256VerificationCandidate``, modulus at least 2048 bits)
/// and for ES256 (``JWK/isVerificationCandidate(for:)``, `x` and `y` of exactly 32 bytes naming a
/// point on P-256) are parsed once, at construction, and cached by algorithm and `kid`, so
/// verifying a token never rebuilds a key; a candidate whose members do not make a valid key is
/// never used.
public struct JWKS: Sendable {
    /// Largest JWKS document accepted, in bytes.
    public static let maximumSize = 512 * 1024

    /// Every key the set holds that this module could read, usable for verification or not.
    public let keys: [JWK]

    /// RS256 verification keys by `kid`; the first usable key wins when a `kid` repeats.
    private let rsaKeysByID: [String: RSAPublicKey]
    /// Every usable RS256 verification key, with or without a `kid`.
    private let rsaKeys: [RSAPublicKey]
    /// ES256 verification keys by `kid`; the first usable key wins when a `kid` repeats.
    private let p256KeysByID: [String: P256PublicKey]
    /// Every usable ES256 verification key, with or without a `kid`.
    private let p256Keys: [P256PublicKey]

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
        var rsaKeysByID: [String: RSAPublicKey] = [:]
        var rsaKeys: [RSAPublicKey] = []
        var p256KeysByID: [String: P256PublicKey] = [:]
        var p256Keys: [P256PublicKey] = []
        for jwk in keys {
            if jwk.isVerificationCandidate(for: .rs256), let publicKey = try? jwk.rsaPublicKey() {
                rsaKeys.append(publicKey)
                if let kid = jwk.kid, rsaKeysByID[kid] == nil { rsaKeysByID[kid] = publicKey }
            } else if jwk.isVerificationCandidate(for: .es256), let publicKey = try? jwk.p256PublicKey() {
                p256Keys.append(publicKey)
                if let kid = jwk.kid, p256KeysByID[kid] == nil { p256KeysByID[kid] = publicKey }
            }
        }
        self.keys = keys
        self.rsaKeysByID = rsaKeysByID
        self.rsaKeys = rsaKeys
        self.p256KeysByID = p256KeysByID
        self.p256Keys = p256Keys
    }

    /// The cached RS256 verification key with exactly this `kid`, if the set has one.
    public func verificationKey(forKeyID keyID: String) -> RSAPublicKey? {
        rsaKeysByID[keyID]
    }

    /// The cached ES256 verification key with exactly this `kid`, if the set has one.
    public func p256VerificationKey(forKeyID keyID: String) -> P256PublicKey? {
        p256KeysByID[keyID]
    }

    /// How many keys in the set can verify RS256 signatures.
    public var verificationKeyCount: Int { rsaKeys.count }

    /// How many keys in the set can verify signatures of `algorithm` (none for an algorithm this
    /// module does not verify).
    public func verificationKeyCount(for algorithm: JWSAlgorithm) -> Int {
        switch algorithm {
        case .rs256: rsaKeys.count
        case .es256: p256Keys.count
        default: 0
        }
    }

    /// The key for `algorithm` with exactly this `kid`.
    func verificationKey(for algorithm: JWSAlgorithm, keyID: String) -> VerificationKey? {
        switch algorithm {
        case .rs256: rsaKeysByID[keyID].map(VerificationKey.rsa)
        case .es256: p256KeysByID[keyID].map(VerificationKey.p256)
        default: nil
        }
    }

    /// The only key for `algorithm`, when the set has exactly one (for tokens without `kid` under
    /// an explicit policy).
    func soleVerificationKey(for algorithm: JWSAlgorithm) -> VerificationKey? {
        switch algorithm {
        case .rs256: rsaKeys.count == 1 ? .rsa(rsaKeys[0]) : nil
        case .es256: p256Keys.count == 1 ? .p256(p256Keys[0]) : nil
        default: nil
        }
    }

    /// A key chosen for one algorithm, which verifies only that algorithm's signatures.
    enum VerificationKey {
        case rsa(RSAPublicKey)
        case p256(P256PublicKey)

        func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
            switch self {
            case .rsa(let key): key.verifyRS256(signature: signature, message: message)
            case .p256(let key): key.verifyES256(signature: signature, message: message)
            }
        }
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
