/// A pointer to an item (CXF `LinkedItem`), from a collection or an `item-reference` credential.
public struct CXFLinkedItem: Sendable, Hashable {
    /// The item's id (base64url); the item may not be part of this export.
    public var item: String
    /// The owning account's id, when it is not the account being read.
    public var account: String?

    /// Creates a link.
    public init(item: String, account: String? = nil) {
        self.item = item
        self.account = account
    }
}
