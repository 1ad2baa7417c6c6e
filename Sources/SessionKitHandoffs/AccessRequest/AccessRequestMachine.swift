import SessionKitCore

/// The pure core of an ``AccessRequestHandoff``: `(state, event) -> (state, [action])`.
///
/// ```
///          start                completion / failure / timer fired / caller cancelled
///   idle ─────────▶ presenting ──────────────────────────────────────────────────▶ idle
///     │                 │
///     │ shut down       │ shut down (presentation and timer cancelled, caller answered)
///     ▼                 │
///   stopped ◀───────────┘ (every later start is refused)
/// ```
///
/// The presenting stage keeps the cancel tokens of its presentation and its timer, and hands them
/// back in the actions that end them: the shell keeps no record of its children.
///
/// No I/O, no `await`, no clock reads. Invalid events follow the package's taxonomy: a second
/// `start` while presenting is API misuse and resumes only that caller with
/// ``AccessRequestError/alreadyInProgress``; a `start` once stopped is answered with
/// ``AccessRequestError/shutDown``; a completion, failure or timer for an attempt that already
/// ended is a harmless race and does nothing.
struct AccessRequestMachine<Waiter: Sendable> {
    struct Presenting {
        var attempt: UInt64
        var waiter: Waiter
        /// Ends the presentation.
        var presentation: CancelToken
        /// Ends the timeout's wait, when there is a timeout.
        var timer: CancelToken?
    }

    enum State {
        case idle
        case presenting(Presenting)
        /// Shut down: every later request is refused.
        case stopped
    }

    enum Action: Sendable {
        case present(AccessRequest, attempt: UInt64, cancel: CancelToken)
        case cancelPresentation(attempt: UInt64, CancelToken)
        case startTimer(attempt: UInt64, after: Duration, cancel: CancelToken)
        case cancelTimer(attempt: UInt64, CancelToken)
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
        switch state {
        case .idle: break
        case .presenting: return [.resume(waiter, .failure(.alreadyInProgress))]
        case .stopped: return [.resume(waiter, .failure(.shutDown))]
        }
        let presenting = Presenting(
            attempt: attempt, waiter: waiter, presentation: CancelToken(), timer: timeout.map { _ in CancelToken() })
        state = .presenting(presenting)
        var actions: [Action] = [.emit(.presented), .present(request, attempt: attempt, cancel: presenting.presentation)]
        if let timeout, let timer = presenting.timer { actions.append(.startTimer(attempt: attempt, after: timeout, cancel: timer)) }
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
            .cancelPresentation(attempt: attempt, presenting.presentation), .emit(.cancelled(.timedOut)),
            .resume(presenting.waiter, .failure(.timedOut)),
        ]
    }

    mutating func callerCancelled(attempt: UInt64) -> [Action] {
        guard let presenting = take(attempt) else { return [] }
        return stopTimer(presenting) + [
            .cancelPresentation(attempt: attempt, presenting.presentation), .emit(.cancelled(.taskCancelled)),
            .resume(presenting.waiter, .failure(.cancelled)),
        ]
    }

    /// The handoff shuts down: the attempt in flight ends with ``AccessRequestError/shutDown``,
    /// and so does every later request.
    mutating func shutDown() -> [Action] {
        let previous = state
        state = .stopped
        guard case .presenting(let presenting) = previous else { return [] }
        return stopTimer(presenting) + [
            .cancelPresentation(attempt: presenting.attempt, presenting.presentation), .emit(.cancelled(.shutDown)),
            .resume(presenting.waiter, .failure(.shutDown)),
        ]
    }

    /// The attempt in flight, if it is `attempt`, leaving the machine idle.
    private mutating func take(_ attempt: UInt64) -> Presenting? {
        guard case .presenting(let presenting) = state, presenting.attempt == attempt else { return nil }
        state = .idle
        return presenting
    }

    private func stopTimer(_ presenting: Presenting) -> [Action] {
        presenting.timer.map { [.cancelTimer(attempt: presenting.attempt, $0)] } ?? []
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

extension AccessRequestMachine: ShellMachine {
    static func event(in action: Action) -> AccessRequestEvent? {
        if case .emit(let event) = action { return event }
        return nil
    }

    mutating func callerCancelled(_ id: UInt64) -> [Action] {
        callerCancelled(attempt: id)
    }
}
