import Foundation
import SessionKit
import SessionKitTesting

/// A cold launch with a valid stored session: a new `Session` on a `FileCredentialStore` and its
/// `restore()`, wired as the other benchmarks' (``BenchmarkSession``: the ``SuspendingTransport``,
/// the store in a temporary directory), against the least a launch must do, a bare read and decode
/// of the same store file (a new `FileCredentialStore` and its `load()`). Both run side by side,
/// interleaved, in each round; the ratio of the medians is the measure. The provider must see no
/// request at all.
struct ColdLaunchBenchmark {
    static let iterations = 200

    var restoreMicroseconds = Samples()
    var loadMicroseconds = Samples()
    private(set) var requests: [Int] = []
    private let environment: BenchmarkSession
    private var directory: URL { environment.directory.url }

    private init(environment: BenchmarkSession) {
        self.environment = environment
    }

    /// Signs in once, which writes the verified session to the store's directory, and shuts that
    /// session down: every launch after it starts from the file alone.
    static func make() async throws -> ColdLaunchBenchmark {
        let environment = try BenchmarkSession()
        try await environment.signIn()
        await environment.session.shutdown()
        return ColdLaunchBenchmark(environment: environment)
    }

    /// One round: `iterations` launches of each kind, alternating.
    @concurrent
    mutating func runRound() async throws {
        let clock = ContinuousClock()
        let before = environment.provider.requestLog.count
        var restores: [Double] = []
        var loads: [Double] = []
        for _ in 0..<Self.iterations {
            let start = clock.now
            let session = Session(
                configuration: environment.configuration, transport: environment.transport,
                store: FileCredentialStore(directory: directory),
                presenter: environment.presenter, clock: environment.clock,
                wallClock: { [clock = environment.clock] in clock.wallClockNow() })
            let stage = try await session.restore()
            restores.append(start.duration(to: clock.now).nanoseconds / 1e3)
            guard stage == .active else { throw BenchmarkFailure("a cold launch reached \(stage), not active") }

            let loadStart = clock.now
            let record = try await FileCredentialStore(directory: directory).load()
            loads.append(loadStart.duration(to: clock.now).nanoseconds / 1e3)
            guard record.session != nil else { throw BenchmarkFailure("the store lost its session") }
        }
        restoreMicroseconds.add(restores.sorted()[restores.count / 2])
        loadMicroseconds.add(loads.sorted()[loads.count / 2])
        requests.append(environment.provider.requestLog.count - before)
    }

    /// The most requests any round sent to the provider (it must be 0).
    var maximumRequests: Int { requests.max() ?? 0 }

    func removeDirectory() {
        environment.directory.remove()
    }
}
