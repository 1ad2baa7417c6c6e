import Foundation

/// A sign-out that revoked and wiped and now ends the provider's browser session too
/// (RP-Initiated Logout 1.0): the request its return must match, and its timeout.
struct ProviderLogout: Sendable {
    var request: EndSessionRequest
    var timer: TimerID
    /// Ends the end-session page's presentation.
    var presentation = CancelHandle()
}

/// What the owner found it can do about the provider's browser session at the end of a sign-out.
enum EndSessionPlan: Sendable {
    /// The configuration does not ask for it.
    case notRequested
    /// Asked for, but not possible (no end-session endpoint, no post-logout redirect URI, no
    /// random source for `state`); the reason is told to the app.
    case unavailable(String)
    /// Open this end-session URL; its return must match this request.
    case open(EndSessionOrder)
}

/// An end-session URL to open and the request it was made from.
struct EndSessionOrder: Sendable, Equatable {
    var request: EndSessionRequest
    var url: URL
}
