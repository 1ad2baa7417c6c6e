import SessionKit
import SessionKitTesting

/// Thirty simulated days of an app that asks for a token every 15 minutes while the provider issues
/// access tokens that become due within 15 minutes: each of the 2 880 calls refreshes, with the
/// provider signing a new RS256 id_token and the session verifying it. Simulated time costs nothing;
/// what is timed on the real clock is the work.
struct SimulatedMonthBenchmark {
    static let days = 30
    static let interval: Duration = .seconds(15 * 60)
    static var refreshes: Int { days * 24 * 4 }

    var milliseconds = Samples()
    /// The process's CPU time over the same steps: what the work costs when the machine is shared.
    var cpuMilliseconds = Samples()
    private(set) var refreshCounts: [Int] = []

    /// One round: a fresh session, signed in, then 2 880 steps of 15 minutes.
    @concurrent
    mutating func runRound() async throws {
        // 15.5-minute access tokens with the default 60 s lead time: due 14.5 minutes after issue,
        // so every 15-minute step finds the token due and refreshes it.
        let provider = SimulatedProviderConfiguration(accessTokenLifetime: .seconds(930))
        let environment = try SimulatedSessionEnvironment(provider: provider)
        environment.presenter.enqueue(.approve(subject: "alice"))
        try await environment.session.signIn()
        let before = environment.provider.requestCount(grantType: "refresh_token")

        let clock = ContinuousClock()
        var checksum = 0.0
        let start = clock.now
        let cpuStart = ProcessCPUTime.now()
        for _ in 0..<Self.refreshes {
            environment.clock.advance(by: Self.interval)
            let token = try await environment.session.validAccessToken()
            checksum += token.expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        let cpu = ProcessCPUTime.now() - cpuStart
        Sink.consume(checksum)
        milliseconds.add(elapsed.nanoseconds / 1e6)
        cpuMilliseconds.add(cpu.nanoseconds / 1e6)
        refreshCounts.append(environment.provider.requestCount(grantType: "refresh_token") - before)
    }
}
