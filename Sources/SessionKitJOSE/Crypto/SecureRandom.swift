/// Bytes from the system's cryptographically secure random number generator.
///
/// It fails closed: if the generator cannot deliver every requested byte, it throws instead of
/// returning something weaker.
public enum SecureRandom {
    /// `count` random bytes. Throws ``CryptoError/invalidParameter`` for a negative count and
    /// ``CryptoError/randomFailed`` when the generator fails.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw .invalidParameter }
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBytes { PlatformCrypto.fillRandom($0) }
        guard ok else { throw .randomFailed }
        return bytes
    }
}
