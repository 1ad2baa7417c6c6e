/// One attachment of an item the share sheet returned: the types it is registered under and,
/// for a grant, its loaded bytes.
public struct AccessRequestAttachment: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The uniform type identifiers the attachment is registered under.
    public var typeIdentifiers: [String]
    /// The bytes loaded for ``AccessGrant/typeIdentifier`` (only grant attachments are loaded).
    public var data: [UInt8]?

    /// Creates an attachment.
    public init(typeIdentifiers: [String], data: [UInt8]? = nil) {
        self.typeIdentifiers = typeIdentifiers
        self.data = data
    }

    /// Whether this attachment carries an access grant, so its data must be loaded.
    public var carriesGrant: Bool {
        typeIdentifiers.contains(AccessGrant.typeIdentifier)
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
