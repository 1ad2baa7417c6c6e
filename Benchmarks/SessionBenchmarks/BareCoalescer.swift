/// The yardstick for coalesced callers: an actor that parks every caller as a stored continuation
/// and resumes them all in one loop, with none of a session's work (no ids, no cancellation
/// handlers, no state machine, no refresh). What a waiter costs here is what Swift's tasks and
/// executors charge on this machine; the session's per-waiter cost is read against it.
actor BareCoalescer {
    private var waiters: [CheckedContinuation<BaselineTokenSource.Token, Never>] = []
    private let token: BaselineTokenSource.Token

    init(token: BaselineTokenSource.Token) {
        self.token = token
    }

    /// Parks the caller until ``resumeAll()``.
    func value() async -> BaselineTokenSource.Token {
        await withCheckedContinuation { waiters.append($0) }
    }

    var waitingCount: Int {
        waiters.count
    }

    func resumeAll() {
        let parked = waiters
        waiters = []
        for waiter in parked { waiter.resume(returning: token) }
    }
}
