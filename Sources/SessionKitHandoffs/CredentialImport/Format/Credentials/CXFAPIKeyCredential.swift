public import SessionKitCore

/// An API key (CXF `api-key`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFAPIKeyCredential: Sendable, Hashable {
    /// The key itself.
    public var key: CXFField<Secret>?
    /// The user name the key belongs to.
    public var username: CXFField<String>?
    /// What kind of key it is.
    public var keyType: CXFField<String>?
    /// Where the key is used.
    public var url: CXFField<String>?
    /// The first day the key is valid.
    public var validFrom: CXFField<String>?
    /// The day the key expires.
    public var expiryDate: CXFField<String>?

    /// Creates a credential.
    public init(
        key: CXFField<Secret>? = nil, username: CXFField<String>? = nil, keyType: CXFField<String>? = nil, url: CXFField<String>? = nil,
        validFrom: CXFField<String>? = nil, expiryDate: CXFField<String>? = nil
    ) {
        self.key = key
        self.username = username
        self.keyType = keyType
        self.url = url
        self.validFrom = validFrom
        self.expiryDate = expiryDate
    }
}
