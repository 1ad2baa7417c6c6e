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
}

#if canImport(Security)
    /// The backend this build uses.
    typealias PlatformCrypto = AppleCryptoBackend
#else
    /// The backend this build uses.
    typealias PlatformCrypto = OpenSSLCryptoBackend
#endif
