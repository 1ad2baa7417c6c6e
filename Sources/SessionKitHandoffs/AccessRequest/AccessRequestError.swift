/// Why ``AccessRequestHandoff/request(_:)`` threw instead of returning an outcome.
@nonexhaustive
public enum AccessRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An access request is already in flight on this handoff: one at a time (API misuse).
    case alreadyInProgress
    /// The caller's task was cancelled; the sheet was dismissed.
    case cancelled
    /// Nothing answered within the handoff's timeout; the sheet was dismissed.
    case timedOut
    /// The presenter could not show the sheet (its message names no request data).
    case presentationFailed(String)
    /// The handoff was shut down (``AccessRequestHandoff/shutdown()``): the sheet was dismissed,
    /// and the handoff takes no more requests.
    case shutDown

    /// What went wrong.
    public var description: String {
        switch self {
        case .alreadyInProgress: "an access request is already in progress"
        case .cancelled: "the access request was cancelled"
        case .timedOut: "the access request timed out"
        case .presentationFailed(let why): "the access request could not be presented: \(why)"
        case .shutDown: "the access request handoff was shut down"
        }
    }
}
