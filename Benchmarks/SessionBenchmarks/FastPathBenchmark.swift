import SessionKit
import SessionKitTesting

/// `validAccessToken()` on an active session whose token is fresh, against a bare call to a trivial
/// actor returning a value of the same shape. Both are called from outside any actor, in batches of
/// `iterations`; each round times one batch of each, alternating which goes first.
struct FastPathBenchmark {
    let iterations: Int
    private let environment: SimulatedSessionEnvironment
    private let baseline: BaselineTokenSource

    var sessionNanoseconds = Samples()
    var baselineNanoseconds = Samples()
    var ratios = Samples()

    /// Signs in on a fresh simulated environment, so the session is active with a one-hour token.
    @concurrent
    static func make(iterations: Int) async throws -> FastPathBenchmark {
        let environment = try SimulatedSessionEnvironment()
        environment.presenter.enqueue(.approve(subject: "alice"))
        try await environment.session.signIn()
        let token = try await environment.session.validAccessToken()
        let baseline = BaselineTokenSource(value: String(repeating: "x", count: token.secret.value.utf8.count), expiresAt: token.expiresAt)
        return FastPathBenchmark(iterations: iterations, environment: environment, baseline: baseline)
    }

    private init(iterations: Int, environment: SimulatedSessionEnvironment, baseline: BaselineTokenSource) {
        self.iterations = iterations
        self.environment = environment
        self.baseline = baseline
    }

    /// One round: a batch through the session and a batch through the baseline actor.
    @concurrent
    mutating func runRound(_ round: Int) async throws {
        let session: Double
        let bare: Double
        if round.isMultiple(of: 2) {
            session = try await Self.timeSession(environment.session, iterations: iterations)
            bare = await Self.timeBaseline(baseline, iterations: iterations)
        } else {
            bare = await Self.timeBaseline(baseline, iterations: iterations)
            session = try await Self.timeSession(environment.session, iterations: iterations)
        }
        sessionNanoseconds.add(session)
        baselineNanoseconds.add(bare)
        ratios.add(session / bare)
    }

    /// Checks the session stayed on its fast path: no refresh happened while it was hammered.
    func refreshCount() -> Int {
        environment.provider.requestCount(grantType: "refresh_token")
    }

    /// Nanoseconds per call.
    @concurrent
    private static func timeSession(_ session: Session<TestClock>, iterations: Int) async throws -> Double {
        let clock = ContinuousClock()
        var checksum = 0.0
        let start = clock.now
        for _ in 0..<iterations {
            let token = try await session.validAccessToken()
            checksum += token.expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(checksum)
        return elapsed.nanoseconds / Double(iterations)
    }

    /// Nanoseconds per call.
    @concurrent
    private static func timeBaseline(_ source: BaselineTokenSource, iterations: Int) async -> Double {
        let clock = ContinuousClock()
        var checksum = 0.0
        let start = clock.now
        for _ in 0..<iterations {
            let token = await source.currentToken()
            checksum += token.expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(checksum)
        return elapsed.nanoseconds / Double(iterations)
    }
}
