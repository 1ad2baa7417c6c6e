/// Why an access request ended without an answer from 1Password.
@nonexhaustive
public enum AccessRequestCancellation: Sendable, Hashable, CustomStringConvertible {
    /// The person closed the sheet without choosing 1Password.
    case closedWithoutChoice
    /// The caller's task was cancelled, which dismissed the sheet.
    case taskCancelled
    /// Nothing answered within the timeout, so the sheet was dismissed.
    case timedOut
    /// The handoff was shut down, which dismissed the sheet.
    case shutDown

    /// The reason's name.
    public var description: String {
        switch self {
        case .closedWithoutChoice: "closed without a choice"
        case .taskCancelled: "task cancelled"
        case .timedOut: "timed out"
        case .shutDown: "shut down"
        }
    }
}
