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

    /// The loaded bytes of every attachment that carries a grant, in item order; the first one
    /// is the answer.
    public var grantData: [[UInt8]] {
        returnedItems.flatMap(\.attachments).filter(\.carriesGrant).compactMap(\.data)
    }
}
