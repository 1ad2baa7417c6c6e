/// An RSA public key checked for use with RS256 and ready to verify.
///
/// Construction validates the parameters (modulus 2048–16384 bits and odd, exponent odd and at
/// least 3) and builds the backend key once, so verifying many tokens never rebuilds it.
public struct RSAPublicKey: Sendable {
    /// Smallest modulus accepted, in bits (NIST SP 800-131A).
    public static let minimumModulusBitCount = 2048
    /// Largest modulus accepted, in bits; bigger keys only make verification a denial of service.
    public static let maximumModulusBitCount = 16384

    let handle: PlatformCrypto.PublicKeyHandle
    /// Big-endian modulus without leading zeros.
    let modulus: [UInt8]
    /// Big-endian public exponent without leading zeros.
    let exponent: [UInt8]

    /// Size of the modulus in bits.
    public let modulusBitCount: Int

    /// Builds a key from big-endian modulus and exponent octets (leading zero octets are ignored).
    /// Throws ``CryptoError/invalidKey`` when the parameters are unsafe or unusable.
    public init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        guard let nFirst = n.first, let nLast = n.last, nLast & 1 == 1 else { throw .invalidKey }
        let bits = n.count * 8 - nFirst.leadingZeroBitCount
        guard bits >= Self.minimumModulusBitCount, bits <= Self.maximumModulusBitCount else { throw .invalidKey }
        // Exponent: odd, at least 3, at most 64 bits (what OpenSSL accepts for public keys).
        guard let eLast = e.last, eLast & 1 == 1, e.count <= 8, e.count > 1 || eLast >= 3 else {
            throw .invalidKey
        }
        guard let handle = PlatformCrypto.makePublicKey(modulus: n, exponent: e) else { throw .invalidKey }
        self.handle = handle
        self.modulus = n
        self.exponent = e
        self.modulusBitCount = bits
    }

    /// Whether `signature` is a valid RSASSA-PKCS1-v1_5 SHA-256 signature of `message`.
    ///
    /// A signature whose length differs from the modulus length is rejected (RFC 8017 §8.2.2).
    public func verifyRS256(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { signature in
            message.withUnsafeBytes { message in
                verifyRS256(signature: signature, message: message)
            }
        }
    }

    /// Verification over raw buffers, used on the token hot path to avoid copies.
    func verifyRS256(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == modulus.count else { return false }
        return PlatformCrypto.verifyRS256(key: handle, signature: signature, message: message)
    }
}
