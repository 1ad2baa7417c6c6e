/// SHA-256 from the platform crypto backend.
public enum SHA256Digest {
    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        if let digest = bytes.withContiguousStorageIfAvailable({ PlatformCrypto.sha256(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(bytes).withUnsafeBytes { PlatformCrypto.sha256($0) }
    }

    /// Digest of raw memory, for callers that already hold a contiguous buffer.
    static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        PlatformCrypto.sha256(buffer)
    }
}
