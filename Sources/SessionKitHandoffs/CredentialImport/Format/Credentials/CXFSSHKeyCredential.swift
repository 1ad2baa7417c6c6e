public import SessionKitCore

/// An SSH key pair (CXF `ssh-key`).
public struct CXFSSHKeyCredential: Sendable, Hashable {
    /// The key's algorithm as SSH names it, such as `ssh-ed25519`.
    public var keyType: String
    /// The private key: PKCS#8 DER, base64url-encoded.
    public var privateKey: Secret
    /// The key's comment, if any.
    public var keyComment: String?
    /// When the key was made, if known.
    public var creationDate: CXFField<String>?
    /// When the key expires, if it does.
    public var expiryDate: CXFField<String>?
    /// What made the key, if known.
    public var keyGenerationSource: CXFField<String>?

    /// Creates a key.
    public init(
        keyType: String, privateKey: Secret, keyComment: String? = nil, creationDate: CXFField<String>? = nil,
        expiryDate: CXFField<String>? = nil, keyGenerationSource: CXFField<String>? = nil
    ) {
        self.keyType = keyType
        self.privateKey = privateKey
        self.keyComment = keyComment
        self.creationDate = creationDate
        self.expiryDate = expiryDate
        self.keyGenerationSource = keyGenerationSource
    }
}
