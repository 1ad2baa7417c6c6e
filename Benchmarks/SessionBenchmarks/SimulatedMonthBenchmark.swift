import SessionKit
import SessionKitTesting

/// Thirty simulated days of an app that asks for a token every 15 minutes while the provider issues
/// access tokens that become due within 15 minutes: each of the 2 880 calls refreshes. The session
/// is wired as an app's (``BenchmarkSession``): every refresh suspends in the
/// ``SuspendingTransport`` before the simulated provider answers with a new RS256-signed id_token,
/// and the session verifies it and writes the result durably to a `FileCredentialStore`. Simulated
/// time costs nothing; what is timed on the real clock is the work.
///
/// The floor is 2 880 ``BareRefresh``es on the same provider, transport and kind of store: one
/// suspension, the provider's signature, one verification, one durable write each.
struct SimulatedMonthBenchmark {
    static let days = 30
    static let interval: Duration = .seconds(15 * 60)
    static var refreshes: Int { days * 24 * 4 }

    var milliseconds = Samples()
    /// The process's CPU time over the same steps: what the work costs when the machine is shared.
    var cpuMilliseconds = Samples()
    /// The floor's wall time, summed over the days of the round.
    var floorMilliseconds = Samples()
    /// The process's CPU time over the floor's steps.
    var floorCPUMilliseconds = Samples()
    /// Per round: the month's wall time over the floor's, both from the same round.
    var ratios = Samples()
    /// Per round: the month's CPU time over the floor's (context: the work the library adds,
    /// without the time spent waiting for the disk).
    var cpuRatios = Samples()
    private(set) var refreshCounts: [Int] = []
    /// Per round: how many times the session fetched the provider's key set during the month. Its
    /// cached keys live an hour (`SessionConfiguration.keySetTimeToLive`), so one refresh in four
    /// finds them stale, writes the rotated token durably as pending, fetches the keys, and writes
    /// again once verified. The floor fetches no keys.
    private(set) var keySetFetches: [Int] = []

    /// One round: a fresh session, signed in, then 2 880 steps of 15 minutes.
    ///
    /// The floor is measured day by day beside the month: after each simulated day's 96 steps, 96
    /// bare refreshes. A burst of outside load (or a slow stretch of the disk) then falls on both
    /// sides alike instead of on whichever happened to run during it.
    @concurrent
    mutating func runRound() async throws {
        // 15.5-minute access tokens with the default 60 s lead time: due 14.5 minutes after issue,
        // so every 15-minute step finds the token due and refreshes it.
        let wiring = try BenchmarkSession(provider: SimulatedProviderConfiguration(accessTokenLifetime: .seconds(930)))
        try await wiring.signIn()
        var floor = try await BareRefresh.make(on: BenchmarkSession(beside: wiring))
        let before = wiring.provider.requestCount(grantType: "refresh_token")
        let keySetBefore = wiring.provider.requestCount(for: .jwks)

        let clock = ContinuousClock()
        var checksum = 0.0
        var elapsed = Duration.zero
        var cpu = Duration.zero
        var floorElapsed = Duration.zero
        var floorCPU = Duration.zero
        let stepsPerDay = Self.refreshes / Self.days
        for _ in 0..<Self.days {
            var start = clock.now
            var cpuStart = ProcessCPUTime.now()
            for _ in 0..<stepsPerDay {
                wiring.clock.advance(by: Self.interval)
                let token = try await wiring.session.validAccessToken()
                checksum += token.expiresAt.timeIntervalSinceReferenceDate
            }
            elapsed += start.duration(to: clock.now)
            cpu += ProcessCPUTime.now() - cpuStart

            start = clock.now
            cpuStart = ProcessCPUTime.now()
            for _ in 0..<stepsPerDay { try await floor.refresh() }
            floorElapsed += start.duration(to: clock.now)
            floorCPU += ProcessCPUTime.now() - cpuStart
        }
        // The floor's refreshes are on the same provider: count the session's before they are added.
        let sessionRefreshes = wiring.provider.requestCount(grantType: "refresh_token") - before - Self.refreshes
        keySetFetches.append(wiring.provider.requestCount(for: .jwks) - keySetBefore)
        Sink.consume(checksum)
        Sink.consume(Double(floor.checksum))
        await floor.finish()
        await wiring.finish()
        milliseconds.add(elapsed.nanoseconds / 1e6)
        cpuMilliseconds.add(cpu.nanoseconds / 1e6)
        floorMilliseconds.add(floorElapsed.nanoseconds / 1e6)
        floorCPUMilliseconds.add(floorCPU.nanoseconds / 1e6)
        ratios.add(elapsed.nanoseconds / floorElapsed.nanoseconds)
        cpuRatios.add(cpu.nanoseconds / floorCPU.nanoseconds)
        refreshCounts.append(sessionRefreshes)
    }
}
