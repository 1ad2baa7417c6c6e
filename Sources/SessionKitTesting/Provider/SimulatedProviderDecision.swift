/// What the simulated person decides on the provider's authorization page.
@nonexhaustive
public enum SimulatedProviderDecision: Sendable, Equatable {
    /// Signs in and approves: the callback carries a code and the state.
    case approve
    /// Refuses: the callback carries `error=access_denied` and the state.
    case deny
}
