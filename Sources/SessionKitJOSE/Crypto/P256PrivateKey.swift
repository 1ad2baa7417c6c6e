/// An ECDSA P-256 private key for signing ES256 tokens in tests and simulated providers.
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
