/// One exported account (CXF `Account`): who owns the items, the items, and their collections.
public struct CXFAccount: Sendable, Hashable {
    /// The exporter's opaque id for the account (base64url, at most 64 bytes).
    public var id: String
    /// The account's user name at the exporter (possibly empty).
    public var username: String
    /// The account's email address at the exporter.
    public var email: String
    /// The person's full name, if known.
    public var fullName: String?
    /// The collections (folders) the account owns.
    public var collections: [CXFCollection]
    /// The items the account owns.
    public var items: [CXFItem]
    /// The account's extensions.
    public var extensions: [CXFExtension]
    /// Items (and collections) that break the format's rules, kept whole with the reason; the
    /// account's other items are in ``items``.
    public var undecodable: [CXFUndecoded]

    /// Creates an account.
    public init(
        id: String, username: String, email: String, fullName: String? = nil, collections: [CXFCollection] = [], items: [CXFItem],
        extensions: [CXFExtension] = [], undecodable: [CXFUndecoded] = []
    ) {
        self.id = id
        self.username = username
        self.email = email
        self.fullName = fullName
        self.collections = collections
        self.items = items
        self.extensions = extensions
        self.undecodable = undecodable
    }
}
