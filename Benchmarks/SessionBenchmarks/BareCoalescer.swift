import Synchronization

/// The yardsticks for coalesced callers: two ways to park every caller as a stored continuation
/// and resume them all in one loop, with none of a session's work (no ids, no cancellation
/// handlers, no state machine, no refresh). What a waiter costs here is what Swift's tasks and
/// executors charge on this machine; the session's per-waiter cost is read against them.
protocol BareCoalescer: Sendable {
    /// Parks the caller until ``resumeAll()``.
    func value() async -> BaselineTokenSource.Token
    /// How many callers are parked.
    var waitingCount: Int { get async }
    /// Resumes every parked caller with the token.
    func resumeAll() async
}

/// Parks callers on an actor: each caller hops onto it to park, and back off it when resumed.
actor ActorCoalescer: BareCoalescer {
    private var waiters: [UnsafeContinuation<BaselineTokenSource.Token, Never>] = []
    private let token: BaselineTokenSource.Token

    init(token: BaselineTokenSource.Token) {
        self.token = token
    }

    func value() async -> BaselineTokenSource.Token {
        await withUnsafeContinuation { waiters.append($0) }
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

/// Parks callers under a lock on their own executor: no hop at all to park, one (back onto the
/// caller's executor) when resumed. The least a coalescer can do.
final class LockCoalescer: BareCoalescer {
    private let waiters = Mutex<[UnsafeContinuation<BaselineTokenSource.Token, Never>]>([])
    private let token: BaselineTokenSource.Token

    init(token: BaselineTokenSource.Token) {
        self.token = token
    }

    nonisolated(nonsending) func value() async -> BaselineTokenSource.Token {
        await withUnsafeContinuation { continuation in waiters.withLock { $0.append(continuation) } }
    }

    var waitingCount: Int {
        waiters.withLock { $0.count }
    }

    func resumeAll() {
        let parked = waiters.withLock { waiters in
            defer { waiters = [] }
            return waiters
        }
        for waiter in parked { waiter.resume(returning: token) }
    }
}
