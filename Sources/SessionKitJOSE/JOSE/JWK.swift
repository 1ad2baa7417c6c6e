/// One JSON Web Key (RFC 7517) as published in a provider's key set.
///
/// Members are kept as written (base64url text for `n` and `e`); any `kty` is representable so a
/// set can carry keys this module does not use. Only RSA keys that may sign RS256 are ever used
/// for verification, see ``isRS256VerificationCandidate``.
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

    /// A key from its members.
    public init(
        kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil, e: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
    }

    /// Whether the key's declared type, use and algorithm allow RS256 signature verification:
    /// `kty` "RSA", `use` "sig" or absent, `alg` "RS256" or absent.
    public var isRS256VerificationCandidate: Bool {
        kty == "RSA" && (use == nil || use == "sig") && (alg == nil || alg == "RS256")
    }

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
    /// A JWK from a parsed JWKS entry, or nil when `kty` is missing or a member this type reads
    /// has the wrong JSON type (such an entry is skipped, not fatal to the set).
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
        self.init(kty: kty, kid: kid, use: use, alg: alg, n: n, e: e)
    }

    /// The JSON object for this key, members in RFC 7517 order.
    var jsonObject: JSONObject {
        var object = JSONObject()
        _ = object.insert("kty", .string(kty))
        let optional: [(String, String?)] = [("kid", kid), ("use", use), ("alg", alg), ("n", n), ("e", e)]
        for case (let name, let value?) in optional {
            _ = object.insert(name, .string(value))
        }
        return object
    }
}
