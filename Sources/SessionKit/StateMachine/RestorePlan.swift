/// What restore found in the store.
enum RestorePlan: Sendable, Equatable {
    /// Nothing: the session stays signed out.
    case nothing
    /// A verified session: refresh it.
    case session
    /// A journaled sign-out or deletion: resume it.
    case pending(PendingOperation)
}
