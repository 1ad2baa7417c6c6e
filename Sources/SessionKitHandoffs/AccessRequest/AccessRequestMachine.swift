/// The pure core of an ``AccessRequestHandoff``: `(state, event) -> (state, [action])`.
///
/// ```
///          start                 completion / failure
///   idle ─────────▶ presenting ─────────────────────────▶ idle
///     ▲                 │ timer fired / caller cancelled
///     └─────────────────┘ (presentation cancelled)
/// ```
///
/// No I/O, no `await`, no clock reads. Invalid events follow the package's taxonomy: a second
/// `start` while presenting is API misuse and resumes only that caller with
/// ``AccessRequestError/alreadyInProgress``; a completion, failure or timer for an attempt that
/// already ended is a harmless race and does nothing.
struct AccessRequestMachine<Waiter> {
    struct Presenting {
        var attempt: UInt64
        var waiter: Waiter
        var hasTimer: Bool
    }

    enum State {
        case idle
        case presenting(Presenting)
    }

    enum Action {
        case present(AccessRequest, attempt: UInt64)
        case cancelPresentation(attempt: UInt64)
        case startTimer(attempt: UInt64, after: Duration)
        case cancelTimer(attempt: UInt64)
        case resume(Waiter, Result<AccessRequestOutcome, AccessRequestError>)
        case emit(AccessRequestEvent)
    }

    let timeout: Duration?
    private(set) var state: State = .idle

    init(timeout: Duration?) {
        self.timeout = timeout
    }

    var isPresenting: Bool {
        if case .presenting = state { return true }
        return false
    }

    /// A caller asks for `request`; `attempt` is the caller's id, unique per call, so only its own
    /// cancellation can end the attempt.
    mutating func start(_ request: AccessRequest, attempt: UInt64, waiter: Waiter) -> [Action] {
        guard case .idle = state else { return [.resume(waiter, .failure(.alreadyInProgress))] }
        state = .presenting(Presenting(attempt: attempt, waiter: waiter, hasTimer: timeout != nil))
        var actions: [Action] = [.emit(.presented), .present(request, attempt: attempt)]
        if let timeout { actions.append(.startTimer(attempt: attempt, after: timeout)) }
        return actions
    }

    mutating func presenterCompleted(_ completion: AccessRequestCompletion, attempt: UInt64) -> [Action] {
        guard let presenting = take(attempt) else { return [] }
        let outcome = AccessRequestOutcome(completion)
        return stopTimer(presenting) + [.emit(Self.event(for: outcome)), .resume(presenting.waiter, .success(outcome))]
    }

    mutating func presenterFailed(_ error: AccessRequestPresentationError, attempt: UInt64) -> [Action] {
        guard let presenting = take(attempt) else { return [] }
        switch error {
        case .cancelled:
            // The shell cancels a presentation only after the machine ended its attempt, so a
            // presenter that reports cancellation on its own had its sheet taken away: the same
            // as a sheet closed without a choice.
            return stopTimer(presenting) + [
                .emit(.cancelled(.closedWithoutChoice)), .resume(presenting.waiter, .success(.cancelled)),
            ]
        case .unavailable(let why):
            return stopTimer(presenting) + [
                .emit(.presentationFailed), .resume(presenting.waiter, .failure(.presentationFailed(why))),
            ]
        }
    }

    mutating func timerFired(attempt: UInt64) -> [Action] {
        guard let presenting = take(attempt) else { return [] }
        return [
            .cancelPresentation(attempt: attempt), .emit(.cancelled(.timedOut)), .resume(presenting.waiter, .failure(.timedOut)),
        ]
    }

    mutating func callerCancelled(attempt: UInt64) -> [Action] {
        guard let presenting = take(attempt) else { return [] }
        return stopTimer(presenting) + [
            .cancelPresentation(attempt: attempt), .emit(.cancelled(.taskCancelled)),
            .resume(presenting.waiter, .failure(.cancelled)),
        ]
    }

    /// The attempt in flight, if it is `attempt`, leaving the machine idle.
    private mutating func take(_ attempt: UInt64) -> Presenting? {
        guard case .presenting(let presenting) = state, presenting.attempt == attempt else { return nil }
        state = .idle
        return presenting
    }

    private func stopTimer(_ presenting: Presenting) -> [Action] {
        presenting.hasTimer ? [.cancelTimer(attempt: presenting.attempt)] : []
    }

    static func event(for outcome: AccessRequestOutcome) -> AccessRequestEvent {
        switch outcome {
        case .granted(let grant): .granted(entries: grant.resolved.count)
        case .notGranted(let grant): .notGranted(grant.state)
        case .declined: .declined
        case .failed(let failure): .failed(failure)
        case .cancelled: .cancelled(.closedWithoutChoice)
        case .grantMissing: .grantMissing
        }
    }
}
