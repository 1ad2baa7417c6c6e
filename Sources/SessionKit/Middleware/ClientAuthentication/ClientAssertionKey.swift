public import SessionKitJOSE

/// The private key a client signs its `private_key_jwt` assertions with (RFC 7523 §2.2), RS256 or
/// ES256, with the `kid` its registered public key carries.
///
/// The key material never leaves the crypto backend; no rendering of the key shows any of it.
public struct ClientAssertionKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    enum Signer: Sendable {
        case rsa(RSAPrivateKey)
        case p256(P256PrivateKey)
    }

    let signer: Signer
    /// The `kid` of the registered public key, sent in the assertion's header; `nil` sends none.
    public let keyID: String?

    /// An RS256 key.
    public static func rs256(_ key: RSAPrivateKey, keyID: String?) -> ClientAssertionKey {
        ClientAssertionKey(signer: .rsa(key), keyID: keyID)
    }

    /// An ES256 key (P-256).
    public static func es256(_ key: P256PrivateKey, keyID: String?) -> ClientAssertionKey {
        ClientAssertionKey(signer: .p256(key), keyID: keyID)
    }

    init(signer: Signer, keyID: String?) {
        self.signer = signer
        self.keyID = keyID
    }

    /// The key in PEM text (PKCS #8 `PRIVATE KEY`, or the traditional `RSA PRIVATE KEY` /
    /// `EC PRIVATE KEY`): RS256 for an RSA key, ES256 for a P-256 key. Throws
    /// `PrivateKeyPEMError` for anything else (an encrypted key, another curve, a certificate),
    /// never showing any of the text.
    public init(pem: some StringProtocol, keyID: String?) throws(PrivateKeyPEMError) {
        self.init(decoded: try .decode(pem), keyID: keyID)
    }

    /// The key in the bytes of a PEM file, as ``init(pem:keyID:)`` reads it.
    public init(pemBytes: [UInt8], keyID: String?) throws(PrivateKeyPEMError) {
        self.init(decoded: try .decode(bytes: pemBytes), keyID: keyID)
    }

    private init(decoded key: PrivateKeyPEM, keyID: String?) {
        switch key {
        case .rsa(let rsa): self.init(signer: .rsa(rsa), keyID: keyID)
        case .p256(let p256): self.init(signer: .p256(p256), keyID: keyID)
        }
    }

    /// The signing algorithm: RS256 or ES256.
    public var algorithm: JWSAlgorithm {
        switch signer {
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// A compact JWS of `payload` under this key's algorithm and `kid`.
    func sign(_ payload: [UInt8]) throws(CryptoError) -> String {
        switch signer {
        case .rsa(let key): try CompactJWS.signRS256(payload: payload, keyID: keyID, key: key)
        case .p256(let key): try CompactJWS.signES256(payload: payload, keyID: keyID, key: key)
        }
    }

    /// The algorithm and `kid` only.
    public var description: String { "ClientAssertionKey(\(algorithm.rawValue), kid: \(keyID ?? "none"), <redacted>)" }
    /// The algorithm and `kid` only.
    public var debugDescription: String { description }
    /// Hides the key from `dump` and debuggers' child listings.
    public var customMirror: Mirror { Mirror(self, children: ["algorithm": algorithm.rawValue], displayStyle: .struct) }
}
