/// A PKCE pair (RFC 7636) using the S256 method.
///
/// The verifier stays in the app until the code exchange; the challenge goes in the
/// authorization request. The verifier is a secret for the life of one handoff.
public struct PKCE: Sendable, Equatable {
    /// The code verifier: 43 base64url characters encoding 32 random bytes.
    public let verifier: String
    /// The S256 code challenge: base64url(SHA-256(verifier)).
    public let challenge: String

    /// A fresh pair from 32 bytes of the system CSPRNG; throws rather than fall back to
    /// anything weaker.
    public static func generate() throws(CryptoError) -> PKCE {
        let verifier = Base64URL.encode(try SecureRandom.bytes(count: 32))
        return PKCE(verifier: verifier, challenge: challenge(forVerifier: verifier))
    }

    /// The S256 challenge for a verifier: base64url(SHA-256(ASCII(verifier))).
    public static func challenge(forVerifier verifier: String) -> String {
        Base64URL.encode(SHA256Digest.hash(verifier.utf8))
    }

    private init(verifier: String, challenge: String) {
        self.verifier = verifier
        self.challenge = challenge
    }
}
