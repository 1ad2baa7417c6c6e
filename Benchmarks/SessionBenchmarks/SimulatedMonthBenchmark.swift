import SessionKit
import SessionKitJOSE
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
    /// The floor: signing the same number of RS256 id_tokens of the same size with the same key,
    /// the provider's share of the work that no session can avoid, timed in the same round.
    var signingMilliseconds = Samples()
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
        signingMilliseconds.add(try Self.signingFloor().nanoseconds / 1e6)
    }

    /// Signs ``refreshes`` id_token-sized messages with the simulated provider's first key.
    private static func signingFloor() throws -> Duration {
        let key = try SimulatedProviderKeys.shared(count: 1)[0]
        // A header and claims of the size the simulated provider signs (about 600 bytes).
        var message = Array(repeating: UInt8(ascii: "a"), count: 600)
        let clock = ContinuousClock()
        let start = clock.now
        var checksum = 0
        for index in 0..<refreshes {
            message[index % message.count] &+= 1
            checksum &+= Int(try key.signRS256(message)[0])
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(Double(checksum))
        return elapsed
    }
}
