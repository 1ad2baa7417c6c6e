/// What a caller waiting on the machine is eventually resumed with.
enum WaiterResult<Tokens> {
    /// Verified tokens (sign-in, refresh, restore).
    case tokens(Tokens)
    /// The operation finished without tokens to hand out (sign-out, deletion, a restore with nothing stored).
    case done
    /// The operation failed for this caller.
    case failed(SessionError)
}

extension WaiterResult: Sendable where Tokens: Sendable {}
extension WaiterResult: Equatable where Tokens: Equatable {}
