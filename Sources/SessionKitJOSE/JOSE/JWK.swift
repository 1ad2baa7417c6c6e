/// One JSON Web Key (RFC 7517) as published in a provider's key set.
///
/// Members are kept as written (base64url text for `n` and `e`); any `kty` is representable so a
/// set can carry keys this module does not use. Only RSA keys that may verify RS256 signatures
/// are ever used for verification, see ``isRS256VerificationCandidate``.
public struct JWK: Sendable, Equatable {
    /// Key type, e.g. "RSA", "EC", "oct".
    public var kty: String
    /// Key ID, matched exactly against a token header's `kid`.
    public var kid: String?
    /// Intended use: "sig" or "enc".
    public var use: String?
    /// The one algorithm the key is meant for, e.g. "RS256".
    public var alg: String?
    /// RSA modulus, base64url big-endian.
    public var n: String?
    /// RSA public exponent, base64url big-endian.
    public var e: String?
    /// `key_ops` (RFC 7517 §4.3): the operations the key is meant for, e.g. `["verify"]`; `nil`
    /// when the member is absent, which restricts nothing.
    public var keyOperations: [String]?

    /// A key from its members.
    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil, e: String? = nil,
        keyOperations: [String]? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
        self.keyOperations = keyOperations
    }

    /// Whether the key's declared type, use, operations and algorithm allow RS256 signature
    /// verification: `kty` "RSA", `use` "sig" or absent, `key_ops` absent or listing "verify",
    /// `alg` "RS256" or absent.
    ///
    /// A key that names both `use` and `key_ops` must say the same thing with both (RFC 7517
    /// §4.3): a "sig" key that also lists an encryption operation is not trusted for either.
    public var isRS256VerificationCandidate: Bool {
        guard kty == "RSA", use == nil || use == "sig", alg == nil || alg == "RS256" else { return false }
        guard let keyOperations else { return true }
        guard keyOperations.contains("verify") else { return false }
        return use == nil || !keyOperations.contains(where: Self.encryptionOperations.contains)
    }

    /// The `key_ops` values that belong to `use` "enc" (RFC 7517 §4.3).
    private static let encryptionOperations: Set = ["encrypt", "decrypt", "wrapKey", "unwrapKey", "deriveKey", "deriveBits"]

    /// The RSA public key this JWK describes. Throws ``CryptoError/invalidKey`` for a non-RSA key,
    /// missing or non-canonical `n`/`e`, or parameters ``RSAPublicKey`` rejects.
    public func rsaPublicKey() throws(CryptoError) -> RSAPublicKey {
        guard kty == "RSA", let n, let e else { throw .invalidKey }
        let modulus: [UInt8]
        let exponent: [UInt8]
        do {
            modulus = try Base64URL.decode(n)
            exponent = try Base64URL.decode(e)
        } catch {
            throw .invalidKey
        }
        return try RSAPublicKey(modulus: modulus, exponent: exponent)
    }
}

extension JWK {
    /// A JWK from a parsed JWKS entry, or nil when `kty` is missing, a member this type reads
    /// has the wrong JSON type, or `key_ops` repeats a value (RFC 7517 §4.3 forbids it); such an
    /// entry is skipped, not fatal to the set.
    init?(json: JSONObject) {
        guard case .string(let kty)? = json["kty"] else { return nil }
        func optionalString(_ name: String) -> String?? {
            switch json[name] {
            case nil: return .some(nil)
            case .string(let value)?: return .some(value)
            default: return nil
            }
        }
        guard let kid = optionalString("kid"), let use = optionalString("use"), let alg = optionalString("alg"),
            let n = optionalString("n"), let e = optionalString("e")
        else { return nil }
        var keyOperations: [String]?
        switch json["key_ops"] {
        case nil:
            keyOperations = nil
        case .array(let values)?:
            let operations = values.compactMap(\.stringValue)
            guard operations.count == values.count, Set(operations).count == operations.count else { return nil }
            keyOperations = operations
        default:
            return nil
        }
        self.init(kty: kty, kid: kid, use: use, alg: alg, n: n, e: e, keyOperations: keyOperations)
    }

    /// The JSON object for this key, members in the order RFC 7517 §4 introduces them.
    var jsonObject: JSONObject {
        var object = JSONObject()
        _ = object.insert("kty", .string(kty))
        let optional: [(String, String?)] = [("kid", kid), ("use", use), ("alg", alg), ("n", n), ("e", e)]
        for case (let name, let value?) in optional.prefix(2) {
            _ = object.insert(name, .string(value))
        }
        if let keyOperations {
            _ = object.insert("key_ops", .array(keyOperations.map(JSONValue.string)))
        }
        for case (let name, let value?) in optional.dropFirst(2) {
            _ = object.insert(name, .string(value))
        }
        return object
    }
}
