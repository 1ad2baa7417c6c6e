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
    ///
    /// The floor is measured day by day beside the month: after each simulated day's 96 steps, 96
    /// signatures. A burst of outside load then falls on both sides alike instead of on whichever
    /// happened to run during it.
    @concurrent
    mutating func runRound() async throws {
        // 15.5-minute access tokens with the default 60 s lead time: due 14.5 minutes after issue,
        // so every 15-minute step finds the token due and refreshes it.
        let provider = SimulatedProviderConfiguration(accessTokenLifetime: .seconds(930))
        let environment = try SimulatedSessionEnvironment(provider: provider)
        environment.presenter.enqueue(.approve(subject: "alice"))
        try await environment.session.signIn()
        let before = environment.provider.requestCount(grantType: "refresh_token")
        var floor = try SigningFloor()

        let clock = ContinuousClock()
        var checksum = 0.0
        var elapsed = Duration.zero
        var cpu = Duration.zero
        var signing = Duration.zero
        let stepsPerDay = Self.refreshes / Self.days
        for _ in 0..<Self.days {
            let start = clock.now
            let cpuStart = ProcessCPUTime.now()
            for _ in 0..<stepsPerDay {
                environment.clock.advance(by: Self.interval)
                let token = try await environment.session.validAccessToken()
                checksum += token.expiresAt.timeIntervalSinceReferenceDate
            }
            elapsed += start.duration(to: clock.now)
            cpu += ProcessCPUTime.now() - cpuStart
            signing += try floor.sign(count: stepsPerDay)
        }
        Sink.consume(checksum)
        Sink.consume(Double(floor.checksum))
        milliseconds.add(elapsed.nanoseconds / 1e6)
        cpuMilliseconds.add(cpu.nanoseconds / 1e6)
        signingMilliseconds.add(signing.nanoseconds / 1e6)
        refreshCounts.append(environment.provider.requestCount(grantType: "refresh_token") - before)
    }

    /// Signs id_token-sized messages with the simulated provider's first key.
    private struct SigningFloor {
        let key: RSAPrivateKey
        // A header and claims of the size the simulated provider signs (about 600 bytes).
        var message = Array(repeating: UInt8(ascii: "a"), count: 600)
        var checksum = 0
        var signed = 0

        init() throws {
            key = try SimulatedProviderKeys.shared(count: 1)[0]
        }

        /// Signs `count` messages, each different, and returns how long that took.
        mutating func sign(count: Int) throws -> Duration {
            let clock = ContinuousClock()
            let start = clock.now
            for _ in 0..<count {
                message[signed % message.count] &+= 1
                signed += 1
                checksum &+= Int(try key.signRS256(message)[0])
            }
            return start.duration(to: clock.now)
        }
    }
}
