/// An RSA private key for signing RS256 tokens in tests and simulated providers.
///
/// SessionKit itself never signs; this exists so the test kit can play an identity provider
/// with real signatures. The key material never leaves the backend.
public struct RSAPrivateKey: Sendable {
    let handle: PlatformCrypto.PrivateKeyHandle

    /// The public half, ready to verify.
    public let publicKey: RSAPublicKey

    /// Generates a fresh key pair with exponent 65537. `bitCount` must be between 2048 and 8192.
    public static func generate(bitCount: Int = 2048) throws(CryptoError) -> RSAPrivateKey {
        guard bitCount >= RSAPublicKey.minimumModulusBitCount, bitCount <= 8192 else { throw .invalidParameter }
        guard let handle = PlatformCrypto.generatePrivateKey(bitCount: bitCount) else { throw .keyGenerationFailed }
        guard let components = PlatformCrypto.publicComponents(of: handle) else { throw .keyGenerationFailed }
        let publicKey = try RSAPublicKey(modulus: components.modulus, exponent: components.exponent)
        return RSAPrivateKey(handle: handle, publicKey: publicKey)
    }

    /// Rebuilds a key from its PKCS #1 `RSAPrivateKey` DER. Throws ``CryptoError/invalidKey`` when
    /// the encoding is malformed, the key inconsistent, or its modulus outside what
    /// ``RSAPublicKey`` accepts (2048 bits at least).
    package init(pkcs1DER: [UInt8]) throws(CryptoError) {
        guard let handle = PlatformCrypto.makeRSAPrivateKey(pkcs1DER: pkcs1DER),
            let components = PlatformCrypto.publicComponents(of: handle)
        else { throw .invalidKey }
        self.init(handle: handle, publicKey: try RSAPublicKey(modulus: components.modulus, exponent: components.exponent))
    }

    private init(handle: PlatformCrypto.PrivateKeyHandle, publicKey: RSAPublicKey) {
        self.handle = handle
        self.publicKey = publicKey
    }

    /// RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    public func signRS256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let signature = message.withUnsafeBytes({ PlatformCrypto.signRS256(key: handle, message: $0) }) else {
            throw .signingFailed
        }
        return signature
    }

    /// The public key as a JWK with `use` "sig" and `alg` "RS256", for serving in a JWKS.
    public func publicJWK(keyID: String) -> JWK {
        JWK(
            kty: "RSA", kid: keyID, use: "sig", alg: "RS256",
            n: Base64URL.encode(publicKey.modulus), e: Base64URL.encode(publicKey.exponent))
    }
}
