/// Why a ``BrowserSession`` ended without a callback URL.
@nonexhaustive
public enum BrowserSessionError: Error, Sendable, Hashable {
    /// The person closed the browser sheet, or the session was cancelled.
    case cancelled
    /// There was no window to present the browser from (the presentation-anchor hook).
    case noPresentationAnchor
    /// The system refused to start the session.
    case couldNotStart
    /// Any other failure, with the system's message (never a URL: it would carry the state).
    case failed(String)
}
