/// A link to another item (CXF `item-reference`): the two items belong together.
public struct CXFItemReferenceCredential: Sendable, Hashable {
    /// The linked item, possibly in another account or not in this export.
    public var reference: CXFLinkedItem

    /// Creates a reference.
    public init(reference: CXFLinkedItem) {
        self.reference = reference
    }
}
