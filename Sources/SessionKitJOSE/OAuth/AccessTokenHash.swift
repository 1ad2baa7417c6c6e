/// The `at_hash` ID-token claim for RS256 and ES256 (OIDC Core §3.1.3.6; both hash with SHA-256):
/// base64url of the left half of SHA-256 over the access token's ASCII bytes.
public enum AccessTokenHash {
    /// `at_hash` for `accessToken`.
    public static func compute(for accessToken: String) -> String {
        Base64URL.encode(SHA256Digest.hash(accessToken.utf8).prefix(16))
    }

    /// Whether `claim` is the `at_hash` of `accessToken`. Compares bytes, not text: the claim
    /// must be canonical base64url of exactly 16 bytes, so equal bytes mean equal text, and no
    /// string is built.
    static func matches(_ claim: String, accessToken: String) -> Bool {
        var claim = claim
        return claim.withUTF8 { text in
            guard text.count == 22 else { return false }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { expected in
                guard Base64URL.decode(buffer: text, into: expected) else { return false }
                let digest = SHA256Digest.hash(accessToken.utf8)
                var difference: UInt8 = 0
                for index in 0..<16 { difference |= digest[index] ^ expected[index] }
                return difference == 0
            }
        }
    }
}
