/// One item the share sheet returned.
public struct AccessRequestReturnedItem: Sendable, Hashable {
    /// The item's attachments.
    public var attachments: [AccessRequestAttachment]

    /// Creates an item.
    public init(attachments: [AccessRequestAttachment]) {
        self.attachments = attachments
    }
}
