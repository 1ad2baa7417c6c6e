import Foundation
import SessionKit
import SessionKitTesting

/// `validAccessToken()` on an active session whose token is fresh, against a bare call to a trivial
/// actor returning a value of the same shape, in batches of `iterations`. Each round times one batch
/// of every (caller, callee) pair, in an order that rotates from round to round.
///
/// Callers:
/// - ``Caller/actor``: app code on its own actor, which uses each result in its own state, so every
///   call is a round trip between two executors. The target applies here.
/// - ``Caller/task``: a loop in a task outside any actor. Nothing after the call needs the generic
///   executor, so the compiler may leave the task on the callee's executor between calls, and the
///   bare call shrinks to a same-executor check: a floor, shown for context.
///
/// Callees: a session wired as an app wires it (`ContinuousClock`, no wall clock given, so the system's,
/// the ``SuspendingTransport`` and a `FileCredentialStore` in a temporary directory); the test kit's
/// session (`TestClock`, whose simulated wall clock is read under a lock, in-memory store); the bare
/// actor. The fast path sends nothing and reads no store: it must never refresh.
struct FastPathBenchmark {
    enum Caller: String, CaseIterable, Sendable {
        case actor
        case task
    }

    enum Callee: String, CaseIterable, Sendable {
        case session
        case testClockSession = "test_clock_session"
        /// The same session as `session`, but its wall clock returns a fixed date: what the fast
        /// path costs apart from reading the time (context: a clock read costs 30–60 ns here).
        case frozenClockSession = "frozen_clock_session"
        case bareActor = "bare_actor"
    }

    struct Pair: Hashable, Sendable {
        var caller: Caller
        var callee: Callee
    }

    let iterations: Int
    private let systemSession: Session
    private let frozenSession: Session
    private let systemProvider: SimulatedProvider<ContinuousClock>
    private let testKit: SimulatedSessionEnvironment
    private let baseline: BaselineTokenSource
    private let actorCaller = ActorCaller()
    private let directories: [BenchmarkDirectory]

    /// Nanoseconds per call.
    private(set) var nanoseconds: [Pair: Samples] = [:]
    /// Per round: the callee's ns/op over the bare actor's, from the same caller.
    private(set) var ratios: [Pair: Samples] = [:]

    /// Signs both sessions in, so each is active with a one-hour token.
    @concurrent
    static func make(iterations: Int) async throws -> FastPathBenchmark {
        let testKit = try SimulatedSessionEnvironment()
        testKit.presenter.enqueue(.approve(subject: "alice"))
        try await testKit.session.signIn()

        let providerConfiguration = SimulatedProviderConfiguration()
        let provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: ContinuousClock(), now: { Date() },
            signingKeys: SimulatedProviderKeys.shared(count: 1))
        let transport = SuspendingTransport(provider)
        let presenter = ScriptedPresenter(provider: provider)
        let configuration = SessionConfiguration(
            provider: try ProviderConfiguration.onePass(
                clientID: providerConfiguration.clientID, redirectURI: providerConfiguration.redirectURI,
                issuer: providerConfiguration.issuer))
        let directories = [BenchmarkDirectory(), BenchmarkDirectory()]
        let systemSession = Session(
            configuration: configuration, transport: transport, store: FileCredentialStore(directory: directories[0].url),
            presenter: presenter, clock: ContinuousClock())
        presenter.enqueue(.approve(subject: "alice"))
        try await systemSession.signIn()
        let frozenNow = Date()
        let frozenSession = Session(
            configuration: configuration, transport: transport, store: FileCredentialStore(directory: directories[1].url),
            presenter: presenter, clock: ContinuousClock(), wallClock: { frozenNow })
        presenter.enqueue(.approve(subject: "alice"))
        try await frozenSession.signIn()

        let token = try await systemSession.validAccessToken()
        let baseline = BaselineTokenSource(value: String(repeating: "x", count: token.secret.value.utf8.count), expiresAt: token.expiresAt)
        return FastPathBenchmark(
            iterations: iterations, systemSession: systemSession, frozenSession: frozenSession, systemProvider: provider, testKit: testKit,
            baseline: baseline, directories: directories)
    }

    private init(
        iterations: Int, systemSession: Session, frozenSession: Session,
        systemProvider: SimulatedProvider<ContinuousClock>,
        testKit: SimulatedSessionEnvironment, baseline: BaselineTokenSource, directories: [BenchmarkDirectory]
    ) {
        self.directories = directories
        self.iterations = iterations
        self.systemSession = systemSession
        self.frozenSession = frozenSession
        self.systemProvider = systemProvider
        self.testKit = testKit
        self.baseline = baseline
    }

    /// One round: a batch for every (caller, callee) pair.
    @concurrent
    mutating func runRound(_ round: Int) async throws {
        let callees = Callee.allCases
        for caller in Caller.allCases {
            var results: [Callee: Double] = [:]
            for slot in callees.indices {
                let callee = callees[(slot + round) % callees.count]
                results[callee] = try await time(caller, callee)
            }
            for (callee, value) in results {
                nanoseconds[Pair(caller: caller, callee: callee), default: Samples()].add(value)
                if callee != .bareActor, let bare = results[.bareActor] {
                    ratios[Pair(caller: caller, callee: callee), default: Samples()].add(value / bare)
                }
            }
        }
    }

    /// Shuts the sessions down and removes their stores.
    func finish() async {
        for session in [systemSession, frozenSession, testKit.session] { await session.shutdown() }
        for directory in directories { directory.remove() }
    }

    /// How many refreshes the sessions made; the fast path must make none.
    func refreshCount() -> Int {
        testKit.provider.requestCount(grantType: "refresh_token") + systemProvider.requestCount(grantType: "refresh_token")
    }

    @concurrent
    private func time(_ caller: Caller, _ callee: Callee) async throws -> Double {
        switch (caller, callee) {
        case (.actor, .session): try await actorCaller.time(systemSession, iterations: iterations)
        case (.actor, .testClockSession): try await actorCaller.time(testKit.session, iterations: iterations)
        case (.actor, .frozenClockSession): try await actorCaller.time(frozenSession, iterations: iterations)
        case (.actor, .bareActor): await actorCaller.time(baseline, iterations: iterations)
        case (.task, .session): try await Self.time(systemSession, iterations: iterations)
        case (.task, .testClockSession): try await Self.time(testKit.session, iterations: iterations)
        case (.task, .frozenClockSession): try await Self.time(frozenSession, iterations: iterations)
        case (.task, .bareActor): await Self.time(baseline, iterations: iterations)
        }
    }

    /// Nanoseconds per call, from a task outside any actor.
    @concurrent @inline(never)
    private static func time(_ session: Session, iterations: Int) async throws -> Double {
        let clock = ContinuousClock()
        var checksum = 0.0
        let start = clock.now
        for _ in 0..<iterations {
            checksum += try await session.validAccessToken().expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(checksum)
        return elapsed.nanoseconds / Double(iterations)
    }

    /// Nanoseconds per call, from a task outside any actor.
    @concurrent @inline(never)
    private static func time(_ source: BaselineTokenSource, iterations: Int) async -> Double {
        let clock = ContinuousClock()
        var checksum = 0.0
        let start = clock.now
        for _ in 0..<iterations {
            checksum += await source.currentToken().expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(checksum)
        return elapsed.nanoseconds / Double(iterations)
    }
}
