/// An ECDSA P-256 private key: it signs ES256 tokens in the simulated providers and DPoP proofs
/// (RFC 9449) for a session.
///
/// The key material never leaves the backend, and no rendering of the key shows any of it.
public struct P256PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let handle: PlatformCrypto.PrivateKeyHandle

    /// The public half, ready to verify.
    public let publicKey: P256PublicKey

    /// Generates a fresh key pair from the system's CSPRNG.
    public static func generate() throws(CryptoError) -> P256PrivateKey {
        guard let handle = PlatformCrypto.generateP256PrivateKey() else { throw .keyGenerationFailed }
        guard let point = PlatformCrypto.p256PublicPoint(of: handle) else { throw .keyGenerationFailed }
        let publicKey = try P256PublicKey(x: Array(point[1..<33]), y: Array(point[33..<65]))
        return P256PrivateKey(handle: handle, publicKey: publicKey)
    }

    /// Rebuilds a key from its scalar `d` (32 bytes, big-endian) and its public coordinates, as a
    /// credential store kept them. Throws ``CryptoError/invalidKey`` when the parts are malformed or
    /// the scalar does not belong to the public point (a corrupted record never signs).
    package init(scalar: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard scalar.count == 32, x.count == 32, y.count == 32 else { throw .invalidKey }
        guard let handle = PlatformCrypto.makeP256PrivateKey(scalar: scalar, uncompressedPoint: [0x04] + x + y) else {
            throw .invalidKey
        }
        self.init(handle: handle, publicKey: try P256PublicKey(x: x, y: y))
    }

    /// The scalar `d`, 32 bytes big-endian, for a credential store to keep with the session
    /// record. Only the package calls this; it is never rendered.
    package func exportScalar() throws(CryptoError) -> [UInt8] {
        guard let scalar = PlatformCrypto.p256PrivateScalar(of: handle) else { throw .invalidKey }
        return scalar
    }

    private init(handle: PlatformCrypto.PrivateKeyHandle, publicKey: P256PublicKey) {
        self.handle = handle
        self.publicKey = publicKey
    }

    /// ES256 signature of `message`: ECDSA P-256 with SHA-256 in the JWS form `r || s` (64 bytes).
    public func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let der = message.withUnsafeBytes({ PlatformCrypto.signES256(key: handle, message: $0) }),
            let signature = ECDSASignature.p1363(fromDER: der)
        else {
            throw .signingFailed
        }
        return signature
    }

    /// The public key as a JWK with `use` "sig" and `alg` "ES256", for serving in a JWKS.
    public func publicJWK(keyID: String) -> JWK {
        publicKey.jwk(keyID: keyID)
    }

    /// Names the type only: a private key is never rendered.
    public var description: String { "P256PrivateKey(redacted)" }

    /// Names the type only: a private key is never rendered.
    public var debugDescription: String { description }
}
