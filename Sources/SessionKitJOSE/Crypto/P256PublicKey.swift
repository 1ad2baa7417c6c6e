/// An ECDSA P-256 public key checked for use with ES256 and ready to verify.
///
/// Construction requires both coordinates as exactly 32 big-endian bytes and a point on the curve
/// (the backend refuses anything else, the point at infinity included), and builds the backend key
/// once, so verifying many tokens never rebuilds it.
public struct P256PublicKey: Sendable {
    let handle: PlatformCrypto.PublicKeyHandle
    /// The affine x coordinate, 32 bytes big-endian.
    public let x: [UInt8]
    /// The affine y coordinate, 32 bytes big-endian.
    public let y: [UInt8]

    /// Builds a key from its affine coordinates. Throws ``CryptoError/invalidKey`` unless each is
    /// exactly 32 bytes and together they name a point of the P-256 group.
    public init(x: [UInt8], y: [UInt8]) throws(CryptoError) {
        guard x.count == 32, y.count == 32 else { throw .invalidKey }
        guard let handle = PlatformCrypto.makeP256PublicKey(uncompressedPoint: [0x04] + x + y) else { throw .invalidKey }
        self.handle = handle
        self.x = x
        self.y = y
    }

    /// Whether `signature` is a valid ES256 signature of `message`: ECDSA P-256 with SHA-256, in
    /// the JWS form `r || s` (exactly 64 bytes, RFC 7518 §3.4).
    ///
    /// A signature of another length, or with `r` or `s` zero or not below the group order, is
    /// rejected before the backend sees it.
    public func verifyES256(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { signature in
            message.withUnsafeBytes { message in
                verifyES256(signature: signature, message: message)
            }
        }
    }

    /// Verification over raw buffers, used on the token hot path to avoid copies.
    func verifyES256(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        guard let der = ECDSASignature.der(fromP1363: signature) else { return false }
        return der.withUnsafeBytes { PlatformCrypto.verifyES256(key: handle, derSignature: $0, message: message) }
    }

    /// The key as a JWK (`kty` "EC", `crv` "P-256"), with the given `kid` and `use` "sig", `alg` "ES256".
    public func jwk(keyID: String?) -> JWK {
        JWK(kty: "EC", kid: keyID, use: "sig", alg: "ES256", crv: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y))
    }

    /// The RFC 7638 JWK thumbprint: base64url (no padding) of the SHA-256 of the required members
    /// `crv`, `kty`, `x`, `y` in that order with no whitespace. DPoP names a key by it (`jkt`,
    /// RFC 9449 §6 and §10).
    public var thumbprint: String {
        // Base64url output needs no JSON escaping, so the canonical text is built directly.
        let canonical = #"{"crv":"P-256","kty":"EC","x":""# + Base64URL.encode(x) + #"","y":""# + Base64URL.encode(y) + #""}"#
        return Base64URL.encode(SHA256Digest.hash(Array(canonical.utf8)))
    }

    /// The public JWK a DPoP proof carries: only `kty`, `crv`, `x` and `y`, so no member can
    /// carry more than the key (RFC 9449 §4.2).
    public var bareJWK: JWK {
        JWK(kty: "EC", kid: nil, use: nil, alg: nil, crv: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y))
    }
}
