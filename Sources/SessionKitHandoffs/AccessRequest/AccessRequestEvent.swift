/// What an ``AccessRequestHandoff`` tells the app, in order. Events carry counts and causes,
/// never a reference.
@nonexhaustive
public enum AccessRequestEvent: Sendable, Hashable, CustomStringConvertible {
    /// The share sheet was asked to show the request.
    case presented
    /// 1Password granted the request with this many entries.
    case granted(entries: Int)
    /// 1Password answered with a grant in another state.
    case notGranted(AccessGrant.State)
    /// The person declined.
    case declined
    /// The request failed.
    case failed(AccessRequestFailure)
    /// The sheet closed without a choice, the caller's task was cancelled, the timeout passed, or
    /// the handoff was shut down.
    case cancelled(AccessRequestCancellation)
    /// An activity completed without returning a grant.
    case grantMissing
    /// The presenter could not show the sheet.
    case presentationFailed

    /// A one-line summary.
    public var description: String {
        switch self {
        case .presented: "presented"
        case .granted(let entries): "granted (\(entries) \(entries == 1 ? "entry" : "entries"))"
        case .notGranted(let state): "not granted: \(state)"
        case .declined: "declined"
        case .failed(let failure): "failed: \(failure)"
        case .cancelled(let why): "cancelled: \(why)"
        case .grantMissing: "completed without a grant"
        case .presentationFailed: "presentation failed"
        }
    }
}
