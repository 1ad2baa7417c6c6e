/// One login a ``SimulatedOnePassword`` grants. Printing it shows the entry id, never the reference.
public struct SimulatedOnePasswordEntry: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The requested entry's id, or `nil` for a login the person added beyond the request.
    public var entryID: String?
    /// The credential reference string to return.
    public var reference: String

    /// A login answering requested entry `entryID`.
    public init(entryID: String?, reference: String) {
        self.entryID = entryID
        self.reference = reference
    }

    /// The entry id only.
    public var description: String { "SimulatedOnePasswordEntry(entryID: \(entryID ?? "nil"), reference: <redacted>)" }
    /// The entry id only.
    public var debugDescription: String { description }
    /// The entry id only.
    public var customMirror: Mirror { Mirror(self, children: ["entryID": entryID as Any], displayStyle: .struct) }

    /// A login the person added beyond the request (no `entryId`).
    public static func extra(_ reference: String) -> SimulatedOnePasswordEntry {
        SimulatedOnePasswordEntry(entryID: nil, reference: reference)
    }
}
