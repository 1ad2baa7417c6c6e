/// The few primitives SessionKitJOSE needs from a platform crypto library.
///
/// OpenSSL implements it on Linux, Security/CryptoKit on Apple platforms. It never sees JSON or
/// tokens: callers hand it bytes and key components and get bytes or a verdict back.
protocol CryptoBackend {
    /// An immutable public key, safe to use from several threads at once.
    associatedtype PublicKeyHandle: Sendable
    /// An immutable private key, safe to use from several threads at once.
    associatedtype PrivateKeyHandle: Sendable

    /// SHA-256 of `message`: 32 bytes.
    static func sha256(_ message: UnsafeRawBufferPointer) -> [UInt8]

    /// Fills `buffer` from the system CSPRNG; `false` when any byte could not be produced.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool

    /// An RSA public key from big-endian modulus and exponent without leading zeros, or nil.
    static func makePublicKey(modulus: [UInt8], exponent: [UInt8]) -> PublicKeyHandle?

    /// RSASSA-PKCS1-v1_5 with SHA-256 verification. The caller has already checked that the
    /// signature is exactly as long as the modulus.
    static func verifyRS256(
        key: PublicKeyHandle, signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) -> Bool

    /// A fresh RSA key pair with exponent 65537, or nil.
    static func generatePrivateKey(bitCount: Int) -> PrivateKeyHandle?

    /// RSASSA-PKCS1-v1_5 with SHA-256 signature, or nil.
    static func signRS256(key: PrivateKeyHandle, message: UnsafeRawBufferPointer) -> [UInt8]?

    /// Modulus and exponent of a private key's public half, big-endian without leading zeros.
    static func publicComponents(of key: PrivateKeyHandle) -> (modulus: [UInt8], exponent: [UInt8])?

    /// A P-256 public key from its uncompressed point `0x04 || x || y` (65 bytes), or nil when the
    /// point is not on the curve (or not in its prime-order group).
    static func makeP256PublicKey(uncompressedPoint: [UInt8]) -> PublicKeyHandle?

    /// ECDSA P-256 with SHA-256 verification of a DER `ECDSA-Sig-Value`. The caller has already
    /// checked that `r` and `s` lie in [1, n-1].
    static func verifyES256(
        key: PublicKeyHandle, derSignature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
    ) -> Bool

    /// A fresh P-256 key pair, or nil.
    static func generateP256PrivateKey() -> PrivateKeyHandle?

    /// ECDSA P-256 with SHA-256 signature as DER `ECDSA-Sig-Value`, or nil.
    static func signES256(key: PrivateKeyHandle, message: UnsafeRawBufferPointer) -> [UInt8]?

    /// The uncompressed public point `0x04 || x || y` of a P-256 private key, or nil.
    static func p256PublicPoint(of key: PrivateKeyHandle) -> [UInt8]?

    /// A P-256 private key from its scalar `d` (32 bytes) and public point (65 bytes), or nil when
    /// they do not belong together or the backend refuses them.
    static func makeP256PrivateKey(scalar: [UInt8], uncompressedPoint: [UInt8]) -> PrivateKeyHandle?

    /// An RSA private key from its PKCS #1 `RSAPrivateKey` DER, or nil when the encoding is
    /// malformed or the key inconsistent.
    static func makeRSAPrivateKey(pkcs1DER: [UInt8]) -> PrivateKeyHandle?

    /// The scalar `d` of a P-256 private key, 32 bytes big-endian, or nil when the key cannot be
    /// exported (a hardware key).
    static func p256PrivateScalar(of key: PrivateKeyHandle) -> [UInt8]?
}

#if canImport(Security)
    /// The backend this build uses.
    typealias PlatformCrypto = AppleCryptoBackend
#else
    /// The backend this build uses.
    typealias PlatformCrypto = OpenSSLCryptoBackend
#endif
