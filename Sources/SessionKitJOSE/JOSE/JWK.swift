/// One JSON Web Key (RFC 7517) as published in a provider's key set.
///
/// Members are kept as written (base64url text for `n`, `e`, `x` and `y`); any `kty` is
/// representable so a set can carry keys this module does not use. Only RSA keys that may verify
/// RS256 signatures and P-256 keys that may verify ES256 signatures are ever used for
/// verification, see ``isVerificationCandidate(for:)``.
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
    /// EC curve name, e.g. "P-256".
    public var crv: String?
    /// EC affine x coordinate, base64url big-endian, as long as the curve's field (32 bytes for P-256).
    public var x: String?
    /// EC affine y coordinate, base64url big-endian, as long as the curve's field (32 bytes for P-256).
    public var y: String?
    /// `key_ops` (RFC 7517 §4.3): the operations the key is meant for, e.g. `["verify"]`; `nil`
    /// when the member is absent, which restricts nothing.
    public var keyOperations: [String]?

    /// A key from its members.
    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil, e: String? = nil,
        crv: String? = nil, x: String? = nil, y: String? = nil, keyOperations: [String]? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
        self.keyOperations = keyOperations
    }

    /// Whether the key's declared type, use, operations and algorithm allow RS256 signature
    /// verification: `kty` "RSA", `use` "sig" or absent, `key_ops` absent or listing "verify",
    /// `alg` "RS256" or absent.
    ///
    /// A key that names both `use` and `key_ops` must say the same thing with both (RFC 7517
    /// §4.3): a "sig" key that also lists an encryption operation is not trusted for either.
    public var isRS256VerificationCandidate: Bool {
        isVerificationCandidate(for: .rs256)
    }

    /// Whether the key's declared type, use, operations and algorithm allow verifying signatures
    /// of `algorithm`: for RS256 `kty` "RSA"; for ES256 `kty` "EC" with `crv` "P-256"; in both
    /// cases `use` "sig" or absent, `key_ops` absent or listing "verify", and `alg` the
    /// algorithm's or absent. Any other algorithm has no candidate.
    ///
    /// A key that names both `use` and `key_ops` must say the same thing with both (RFC 7517
    /// §4.3): a "sig" key that also lists an encryption operation is not trusted for either.
    public func isVerificationCandidate(for algorithm: JWSAlgorithm) -> Bool {
        switch algorithm {
        case .rs256: guard kty == "RSA" else { return false }
        case .es256: guard kty == "EC", crv == "P-256" else { return false }
        default: return false
        }
        guard use == nil || use == "sig", alg == nil || alg == algorithm.rawValue else { return false }
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

    /// The P-256 public key this JWK describes. Throws ``CryptoError/invalidKey`` unless `kty` is
    /// "EC", `crv` is "P-256", `x` and `y` are canonical base64url of exactly 32 bytes each (RFC
    /// 7518 §6.2.1.2: the full field length, leading zeros kept), and the point is on the curve.
    public func p256PublicKey() throws(CryptoError) -> P256PublicKey {
        guard kty == "EC", crv == "P-256", let x, let y else { throw .invalidKey }
        // 32 bytes are exactly 43 unpadded characters; checking first keeps a huge member from being decoded.
        guard x.utf8.count == 43, y.utf8.count == 43 else { throw .invalidKey }
        let xBytes: [UInt8]
        let yBytes: [UInt8]
        do {
            xBytes = try Base64URL.decode(x)
            yBytes = try Base64URL.decode(y)
        } catch {
            throw .invalidKey
        }
        return try P256PublicKey(x: xBytes, y: yBytes)
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
            let n = optionalString("n"), let e = optionalString("e"), let crv = optionalString("crv"),
            let x = optionalString("x"), let y = optionalString("y")
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
        self.init(kty: kty, kid: kid, use: use, alg: alg, n: n, e: e, crv: crv, x: x, y: y, keyOperations: keyOperations)
    }

    /// The JSON object for this key, members in the order RFC 7517 §4 introduces them.
    var jsonObject: JSONObject {
        var object = JSONObject()
        _ = object.insert("kty", .string(kty))
        let optional: [(String, String?)] = [
            ("kid", kid), ("use", use), ("alg", alg), ("n", n), ("e", e), ("crv", crv), ("x", x), ("y", y),
        ]
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
