/// One attachment of an item the share sheet returned: the types it is registered under and,
/// for a grant, its loaded bytes.
public struct AccessRequestAttachment: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The uniform type identifiers the attachment is registered under.
    public var typeIdentifiers: [String]
    /// The bytes loaded for ``AccessGrant/typeIdentifier`` (only grant attachments are loaded).
    public var data: [UInt8]?
    /// Whether the platform says the attachment conforms to ``AccessGrant/typeIdentifier``
    /// (`NSItemProvider.hasItemConformingToTypeIdentifier(_:)`), as 1Password's sample checks,
    /// even when it is registered under a more specific type.
    public var conformsToGrantType: Bool

    /// Creates an attachment.
    public init(typeIdentifiers: [String], data: [UInt8]? = nil, conformsToGrantType: Bool = false) {
        self.typeIdentifiers = typeIdentifiers
        self.data = data
        self.conformsToGrantType = conformsToGrantType
    }

    /// Whether this attachment carries an access grant, so its data must be loaded: registered
    /// under the grant's type, or conforming to it.
    public var carriesGrant: Bool {
        conformsToGrantType || typeIdentifiers.contains(AccessGrant.typeIdentifier)
    }

    /// Types and size only: the bytes hold credential references.
    public var description: String {
        "AccessRequestAttachment(types: \(typeIdentifiers), bytes: \(data.map { String($0.count) } ?? "none"))"
    }

    /// Types only.
    public var customMirror: Mirror {
        Mirror(self, children: ["typeIdentifiers": typeIdentifiers], displayStyle: .struct)
    }
}
