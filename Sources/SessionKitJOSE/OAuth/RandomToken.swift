/// Unguessable values for OAuth `state` and OpenID `nonce`.
public enum RandomToken {
    /// Base64url text of `byteCount` bytes from the system CSPRNG. At least 16 bytes (128 bits)
    /// are required, else ``CryptoError/invalidParameter``; at most 1024.
    public static func generate(byteCount: Int = 32) throws(CryptoError) -> String {
        guard byteCount >= 16, byteCount <= 1024 else { throw .invalidParameter }
        return Base64URL.encode(try SecureRandom.bytes(count: byteCount))
    }
}
