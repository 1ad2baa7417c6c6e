/// One exported account (CXF `Account`): who owns the items, and the items.
public struct CXFAccount: Sendable, Hashable {
    /// The exporter's opaque id for the account (base64url, at most 64 bytes).
    public var id: String
    /// The account's user name at the exporter (possibly empty).
    public var username: String
    /// The account's email address at the exporter.
    public var email: String
    /// The person's full name, if known.
    public var fullName: String?
    /// The items the account owns.
    public var items: [CXFItem]

    /// Creates an account.
    public init(id: String, username: String, email: String, fullName: String? = nil, items: [CXFItem]) {
        self.id = id
        self.username = username
        self.email = email
        self.fullName = fullName
        self.items = items
    }
}
