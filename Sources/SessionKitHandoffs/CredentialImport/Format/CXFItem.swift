public import Foundation

/// One entry of an account's vault (CXF `Item`): a title and its credentials.
public struct CXFItem: Sendable, Hashable {
    /// The exporter's opaque id for the item (base64url, at most 64 bytes).
    public var id: String
    /// The item's title.
    public var title: String
    /// A subtitle, if any.
    public var subtitle: String?
    /// When the item was created (`creationAt`), if known.
    public var createdAt: Date?
    /// When the item was last changed, if known.
    public var modifiedAt: Date?
    /// Whether the person marked it as a favorite, if known.
    public var favorite: Bool?
    /// Where the item's credentials apply (web sites, Android apps), if known.
    public var scope: CXFCredentialScope?
    /// The item's credentials, in the exporter's order; one that breaks the format's rules is
    /// ``CXFCredential/undecodable(_:)``, and the others are still there.
    public var credentials: [CXFCredential]
    /// The person's tags.
    public var tags: [String]
    /// The item's extensions.
    public var extensions: [CXFExtension]

    /// Creates an item.
    public init(
        id: String, title: String, subtitle: String? = nil, createdAt: Date? = nil, modifiedAt: Date? = nil, favorite: Bool? = nil,
        scope: CXFCredentialScope? = nil, credentials: [CXFCredential], tags: [String] = [], extensions: [CXFExtension] = []
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
        self.favorite = favorite
        self.scope = scope
        self.credentials = credentials
        self.tags = tags
        self.extensions = extensions
    }
}
