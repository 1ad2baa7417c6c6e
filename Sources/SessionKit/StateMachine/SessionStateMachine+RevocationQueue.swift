extension SessionStateMachine {
    /// Tokens were added to the store's revocation queue: start draining it unless that is under way.
    mutating func revocationsQueued() -> [Action] {
        switch revocationQueue.phase {
        case .idle:
            revocationQueue.phase = .revoking(attempt: 1)
            return [.revokeQueued(attempt: 1)]
        case .revoking:
            revocationQueue.queuedMeanwhile = true
            return []
        case .waiting:
            // The backoff's timer looks at the queue again, new tokens included.
            return []
        }
    }

    /// An attempt at the first queued token ended.
    mutating func queuedRevocationAnswered(_ answer: QueuedRevocationAnswer) -> [Action] {
        guard case .revoking(let attempt) = revocationQueue.phase else {
            // An answer the queue no longer waits for (the session was shut down meanwhile).
            return []
        }
        switch answer {
        case .queueEmpty:
            if revocationQueue.queuedMeanwhile {
                revocationQueue.queuedMeanwhile = false
                return [.revokeQueued(attempt: 1)]
            }
            revocationQueue.phase = .idle
            return []
        case .removed(let told):
            revocationQueue.queuedMeanwhile = false
            revocationQueue.phase = .revoking(attempt: 1)
            return (told ? [.emit(.deferredRevocationCompleted)] : []) + [.revokeQueued(attempt: 1)]
        case .transient(let retryIn):
            let timer = makeTimer()
            revocationQueue.phase = .waiting(timer: timer, attempt: attempt + 1)
            return [.startTimer(timer, after: retryIn)]
        }
    }

    /// The queue's backoff timer, if `id` is it: the next attempt starts.
    mutating func revocationQueueTimerFired(_ id: TimerID) -> [Action]? {
        guard case .waiting(let timer, let attempt) = revocationQueue.phase, timer == id else { return nil }
        revocationQueue.phase = .revoking(attempt: attempt)
        revocationQueue.queuedMeanwhile = false
        return [.revokeQueued(attempt: attempt)]
    }
}
