/// Owns an app's access requests to 1Password: one at a time, each shown through the presenter,
/// answered with an ``AccessRequestOutcome`` that says whether and how to retry.
///
/// A thin shell around a pure machine: each call runs one transition and performs the actions it
/// returns; the presentation runs in a task of its own that reports back. The optional timeout
/// waits on the injected clock, so tests drive it in simulated time.
///
/// ```swift
/// let presenter = OnePasswordSharePresenter { [weak viewController] in viewController }
/// let handoff = AccessRequestHandoff(presenter: presenter, clock: ContinuousClock(), timeout: .seconds(600))
/// let outcome = try await handoff.request(AccessRequestReference(referenceFromServer))
/// if case .granted(let grant) = outcome {
///     let match = grant.match(requestedEntryIDs: ["github", "aws"])
///     use(match["github"], match.extraLogins)
/// } else if outcome.retryPolicy.allowsAutomaticRetry {
///     scheduleRetry()   // the same reference, unchanged
/// }
/// ```
public actor AccessRequestHandoff<C: Clock> where C.Duration == Duration {
    private typealias Machine = AccessRequestMachine<CheckedContinuation<Result<AccessRequestOutcome, AccessRequestError>, Never>>

    private let presenter: any AccessRequestPresenter
    private let clock: C
    private var machine: Machine
    private var presentations: [UInt64: Task<Void, Never>] = [:]
    private var timers: [UInt64: Task<Void, Never>] = [:]
    private var broadcaster = EventBroadcaster<AccessRequestEvent>()
    private var lastAttempt: UInt64 = 0

    /// Creates a handoff.
    ///
    /// - Parameters:
    ///   - presenter: Shows the request (the share sheet, or a simulation).
    ///   - clock: The timeout waits on it.
    ///   - timeout: How long to wait for an answer before dismissing the sheet; `nil` waits as
    ///     long as the person takes.
    public init(presenter: any AccessRequestPresenter, clock: C, timeout: Duration? = nil) {
        self.presenter = presenter
        self.clock = clock
        self.machine = Machine(timeout: timeout)
    }

    /// Whether an access request is in flight.
    public var isPresenting: Bool { machine.isPresenting }

    /// A stream of every later event, in order.
    public func events() -> AsyncStream<AccessRequestEvent> {
        broadcaster.subscribe { [weak self] id in
            Task { await self?.removeSubscriber(id) }
        }
    }

    /// Calls `observer` synchronously, on the handoff's executor, for every later event.
    public func addObserver(_ observer: @escaping @Sendable (AccessRequestEvent) -> Void) {
        broadcaster.addObserver(observer)
    }

    /// Presents an access request for `reference` and returns how it ended.
    ///
    /// Throws ``AccessRequestError/alreadyInProgress`` while another request is in flight,
    /// ``AccessRequestError/timedOut`` after the timeout, and ``AccessRequestError/cancelled``
    /// when the calling task is cancelled (which dismisses the sheet).
    public func request(_ reference: AccessRequestReference) async throws(AccessRequestError) -> AccessRequestOutcome {
        let request = AccessRequest(reference: reference)
        lastAttempt += 1
        let attempt = lastAttempt
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<AccessRequestOutcome, AccessRequestError>, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                    return
                }
                perform(machine.start(request, attempt: attempt, waiter: continuation))
            }
        } onCancel: {
            Task { await self.callerCancelled(attempt: attempt) }
        }
        return try result.get()
    }

    // MARK: - Running the machine

    private func callerCancelled(attempt: UInt64) {
        perform(machine.callerCancelled(attempt: attempt))
    }

    private func presenterCompleted(_ completion: AccessRequestCompletion, attempt: UInt64) {
        presentations[attempt] = nil
        perform(machine.presenterCompleted(completion, attempt: attempt))
    }

    private func presenterFailed(_ error: AccessRequestPresentationError, attempt: UInt64) {
        presentations[attempt] = nil
        perform(machine.presenterFailed(error, attempt: attempt))
    }

    private func timerFired(attempt: UInt64) {
        timers[attempt] = nil
        perform(machine.timerFired(attempt: attempt))
    }

    private func removeSubscriber(_ id: UInt64) {
        broadcaster.remove(id)
    }

    private func perform(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .present(let request, let attempt):
                let presenter = presenter
                // The task runs on this actor; only the presentation itself leaves it.
                presentations[attempt] = Task {
                    do throws(AccessRequestPresentationError) {
                        let completion = try await presenter.present(request)
                        presenterCompleted(completion, attempt: attempt)
                    } catch {
                        presenterFailed(error, attempt: attempt)
                    }
                }
            case .cancelPresentation(let attempt):
                presentations.removeValue(forKey: attempt)?.cancel()
            case .startTimer(let attempt, let duration):
                let clock = clock
                timers[attempt] = Task {
                    // A cancelled sleep means the attempt ended first; nothing to report.
                    guard (try? await clock.sleep(for: duration)) != nil else { return }
                    timerFired(attempt: attempt)
                }
            case .cancelTimer(let attempt):
                timers.removeValue(forKey: attempt)?.cancel()
            case .resume(let waiter, let result):
                waiter.resume(returning: result)
            case .emit(let event):
                broadcaster.publish(event)
            }
        }
    }
}
