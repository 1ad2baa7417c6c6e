/// Where the background revocation of queued refresh tokens stands (tokens of an earlier session,
/// of a rejected sign-in, or that arrived late). The tokens themselves are in the store's record;
/// this is only the machine's view of the work, so its backoff runs on the machine's timers.
struct RevocationQueue: Sendable, Equatable {
    enum Phase: Sendable, Equatable {
        /// Nothing is being revoked.
        case idle
        /// Attempt `attempt` at the first queued token is in flight.
        case revoking(attempt: Int)
        /// Backing off after a failure that may pass; `timer` fires for attempt `attempt`.
        case waiting(timer: TimerID, attempt: Int)
    }

    var phase = Phase.idle
    /// More tokens were queued while a revocation was in flight: look at the queue again.
    var queuedMeanwhile = false
}

/// How one attempt at the first token of the revocation queue ended.
enum QueuedRevocationAnswer: Sendable, Equatable {
    /// The queue is empty (or the store could not be read: nothing can be revoked now).
    case queueEmpty
    /// The token is gone from the queue: revoked (`told`: the provider confirmed; `false`: it has
    /// no revocation endpoint), or refused for good.
    case removed(told: Bool)
    /// It may pass: try the same token again after `retryIn`.
    case transient(retryIn: Duration)
}
