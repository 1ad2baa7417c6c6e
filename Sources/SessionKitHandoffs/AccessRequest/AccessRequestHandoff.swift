import SessionKitCore

/// Owns an app's access requests to 1Password: one at a time, each shown through the presenter,
/// answered with an ``AccessRequestOutcome`` that says whether and how to retry.
///
/// A thin shell around a pure machine (`AccessRequestMachine`): one lock guards the machine; each
/// call feeds it one input under that lock, and the actions it returns are performed in order
/// after the lock is released. The presentation and the optional timeout run as children of the
/// handoff's one task owner and report back as inputs; ``shutdown()`` ends them. The timeout waits
/// on the injected clock, so tests drive it in simulated time.
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
public final class AccessRequestHandoff<C: Clock>: Sendable, ShellHost where C.Duration == Duration {
    private let shell: MachineShell<AccessRequestRunner<C>>

    /// Creates a handoff.
    ///
    /// - Parameters:
    ///   - presenter: Shows the request (the share sheet, or a simulation).
    ///   - clock: The timeout waits on it.
    ///   - timeout: How long to wait for an answer before dismissing the sheet; `nil` waits as
    ///     long as the person takes.
    public init(presenter: any AccessRequestPresenter, clock: C, timeout: Duration? = nil) {
        self.shell = MachineShell(AccessRequestMachine(timeout: timeout), runner: AccessRequestRunner(presenter: presenter, clock: clock))
    }

    /// Whether an access request is in flight.
    public var isPresenting: Bool { shell.read(\.isPresenting) }

    /// A stream of every later event, in order; it ends when the handoff shuts down.
    public func events() -> AsyncStream<AccessRequestEvent> {
        shell.events()
    }

    /// Calls `observer` synchronously, in order, for every later event, on the thread that
    /// performs the handoff's actions (never two at once). It must return quickly and must not
    /// call back into the handoff.
    public func addObserver(_ observer: @escaping @Sendable (AccessRequestEvent) -> Void) {
        shell.addObserver(observer)
    }

    /// Presents an access request for `reference` and returns how it ended.
    ///
    /// Throws ``AccessRequestError/alreadyInProgress`` while another request is in flight,
    /// ``AccessRequestError/timedOut`` after the timeout, ``AccessRequestError/cancelled``
    /// when the calling task is cancelled (which dismisses the sheet), and
    /// ``AccessRequestError/shutDown`` once the handoff is shut down.
    public func request(_ reference: AccessRequestReference) async throws(AccessRequestError) -> AccessRequestOutcome {
        let request = AccessRequest(reference: reference)
        return try await shell.suspend(cancelled: .failure(.cancelled)) { machine, caller, waiter in
            machine.start(request, attempt: caller, waiter: waiter)
        }.get()
    }

    /// Ends the handoff: a request in flight throws ``AccessRequestError/shutDown`` and its
    /// sheet is dismissed, the event streams end, and every later request is refused the same
    /// way. Returns once every task the handoff started has ended.
    public func shutdown() async {
        await shell.shutdown()
    }

    /// The task owner and change feed the test kit reads (``ShellHost``).
    package var shellWork: ShellWork { shell.work }
}

extension AccessRequestHandoff: CustomReflectable {
    /// What `dump` and debuggers show: whether a request is in flight, never its reference.
    public var customMirror: Mirror {
        Mirror(self, children: ["isPresenting": isPresenting], displayStyle: .class)
    }
}
