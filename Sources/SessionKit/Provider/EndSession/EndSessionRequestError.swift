/// Why an ``EndSessionRequest`` could not be built.
@nonexhaustive
public enum EndSessionRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A post-logout redirect URI without `state`: the return could not be matched to this request.
    case stateRequired
    /// An empty `state`.
    case emptyState

    /// A short phrase naming the rule.
    public var description: String {
        switch self {
        case .stateRequired: "a post-logout redirect URI needs a state"
        case .emptyState: "the state is empty"
        }
    }
}
