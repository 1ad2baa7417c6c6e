/// What a URL that reached the app means for an RP-initiated logout in progress.
@nonexhaustive
public enum EndSessionReturn: Sendable, Hashable, CustomStringConvertible {
    /// Not this logout's post-logout redirect URI (another scheme, host, port or path): not
    /// consumed, the logout keeps waiting.
    case notForThisRequest
    /// The provider came back with this request's `state`: its session ended.
    case completed
    /// The post-logout redirect URI, but not an acceptable return; consumed and reported, never
    /// taken as completion.
    case refused(Refusal)

    /// Why a return to the post-logout redirect URI was refused. No case carries a value from the URL.
    @nonexhaustive
    public enum Refusal: Sendable, Hashable {
        /// The URL has no `state`.
        case missingState
        /// The `state` is not this request's.
        case stateMismatch
        /// A parameter appears more than once (RFC 6749 §3.1 applies to these redirects as well).
        case repeatedParameter(String)
        /// The query cannot be decoded.
        case undecodableQuery
    }

    /// A short phrase, e.g. `refused (state mismatch)`.
    public var description: String {
        switch self {
        case .notForThisRequest: "not for this request"
        case .completed: "completed"
        case .refused(.missingState): "refused (no state)"
        case .refused(.stateMismatch): "refused (state mismatch)"
        case .refused(.repeatedParameter(let name)): "refused (repeated parameter \(name))"
        case .refused(.undecodableQuery): "refused (undecodable query)"
        }
    }
}
