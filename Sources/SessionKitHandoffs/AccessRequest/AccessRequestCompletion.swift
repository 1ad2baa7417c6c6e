/// An error the share sheet reported, as a domain and number, and what it means if known.
public struct AccessRequestReportedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's domain.
    public var domain: String
    /// The error's numeric code within its domain.
    public var number: Int
    /// The protocol error it stands for, when recognized (see ``AccessRequestErrorTable``).
    public var code: AccessRequestErrorCode?

    /// Creates a reported error.
    public init(domain: String, number: Int, code: AccessRequestErrorCode? = nil) {
        self.domain = domain
        self.number = number
        self.code = code
    }

    /// Domain, number and meaning: an error carries no request data.
    public var description: String {
        "\(domain) \(number)" + (code.map { " (\($0))" } ?? "")
    }
}

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

/// One item the share sheet returned.
public struct AccessRequestReturnedItem: Sendable, Hashable {
    /// The item's attachments.
    public var attachments: [AccessRequestAttachment]

    /// Creates an item.
    public init(attachments: [AccessRequestAttachment]) {
        self.attachments = attachments
    }
}

/// What the share sheet reported when it closed: the cross-platform form of
/// `completionWithItemsHandler`'s `(completed, returnedItems, error)`.
///
/// The Apple adapter fills it in; ``AccessRequestOutcome/init(_:)`` decides what it means, in
/// code that runs (and is tested) everywhere.
public struct AccessRequestCompletion: Sendable, Hashable {
    /// Whether the chosen activity completed.
    public var completed: Bool
    /// The items the activity returned.
    public var returnedItems: [AccessRequestReturnedItem]
    /// The error the activity reported, if any.
    public var error: AccessRequestReportedError?

    /// Creates a completion.
    public init(completed: Bool, returnedItems: [AccessRequestReturnedItem] = [], error: AccessRequestReportedError? = nil) {
        self.completed = completed
        self.returnedItems = returnedItems
        self.error = error
    }

    /// The loaded bytes of every attachment that carries a grant, in item order.
    public var grantData: [[UInt8]] {
        returnedItems.flatMap(\.attachments).filter(\.carriesGrant).compactMap(\.data)
    }
}
