/// The `at_hash` ID-token claim for RS256 and ES256 (OIDC Core §3.1.3.6; both hash with SHA-256):
/// base64url of the left half of SHA-256 over the access token's ASCII bytes.
public enum AccessTokenHash {
    /// `at_hash` for `accessToken`.
    public static func compute(for accessToken: String) -> String {
        Base64URL.encode(SHA256Digest.hash(accessToken.utf8).prefix(16))
    }
}
