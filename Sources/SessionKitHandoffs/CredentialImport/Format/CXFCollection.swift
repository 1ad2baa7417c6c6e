public import Foundation

/// A folder of an account's items (CXF `Collection`), possibly with sub-collections.
public struct CXFCollection: Sendable, Hashable {
    /// The exporter's opaque id for the collection (base64url, at most 64 bytes).
    public var id: String
    /// The collection's display name.
    public var title: String
    /// A subtitle or description, if any.
    public var subtitle: String?
    /// When the collection was created, if known.
    public var createdAt: Date?
    /// When the collection was last changed, if known.
    public var modifiedAt: Date?
    /// The items in the collection.
    public var items: [CXFLinkedItem]
    /// Nested collections.
    public var subCollections: [CXFCollection]
    /// The collection's extensions.
    public var extensions: [CXFExtension]

    /// Creates a collection.
    public init(
        id: String, title: String, subtitle: String? = nil, createdAt: Date? = nil, modifiedAt: Date? = nil, items: [CXFLinkedItem],
        subCollections: [CXFCollection] = [], extensions: [CXFExtension] = []
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.items = items
        self.subCollections = subCollections
        self.extensions = extensions
    }
}
