/// The key seam for DPoP proofs (RFC 9449): anything that can produce an ES256 signature with a
/// P-256 key whose public half it can show.
///
/// A software key (``P256PrivateKey``, OpenSSL on Linux) conforms; so can a key that never leaves
/// hardware (a Secure Enclave key on Apple platforms), which is why the seam asks for a signature
/// and never for the private key itself.
public protocol DPoPSigningKey: Sendable {
    /// The public half, carried in every proof's `jwk` header and named by its thumbprint.
    var publicKey: P256PublicKey { get }

    /// ES256 signature of `message` in the JWS form `r || s` (64 bytes, RFC 7518 §3.4).
    func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8]
}

extension P256PrivateKey: DPoPSigningKey {}
