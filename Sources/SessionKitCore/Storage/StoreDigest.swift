import SessionKitJOSE

/// The digest that seals a ``StoreEnvelope``: SHA-256 from the platform crypto backend.
///
/// A checksum would catch accidental damage as well; SHA-256 is used because it is already at
/// hand and leaves no doubt that a match means the bytes are the ones written.
enum StoreDigest {
    static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        SHA256Digest.hash(bytes)
    }
}
