/// What a caller waiting on the machine is eventually resumed with.
enum WaiterResult<Tokens> {
    /// Verified tokens (sign-in, refresh, restore).
    case tokens(Tokens)
    /// The operation finished without tokens to hand out (sign-out, deletion, a restore with nothing stored).
    case done
    /// `restore()` is answered at once with the stage the session was restored into; whatever
    /// happens next (a background refresh, a resumed sign-out) is reported through events.
    case restored(SessionStage)
    /// The operation failed for this caller.
    case failed(SessionError)
}

extension WaiterResult: Sendable where Tokens: Sendable {}
extension WaiterResult: Equatable where Tokens: Equatable {}
