/// A file attached to an item (CXF `file`); its encrypted content travels beside the document
/// (in the export archive's `documents` folder), named by ``id``.
public struct CXFFileCredential: Sendable, Hashable {
    /// The file's id (base64url), which names its content in the archive.
    public var id: String
    /// The file's name, with its extension.
    public var name: String
    /// The decrypted content's size in bytes.
    public var decryptedSize: UInt64
    /// The SHA-256 of the decrypted content (base64url), to check the content against.
    public var integrityHash: String

    /// Creates a file entry.
    public init(id: String, name: String, decryptedSize: UInt64, integrityHash: String) {
        self.id = id
        self.name = name
        self.decryptedSize = decryptedSize
        self.integrityHash = integrityHash
    }
}
