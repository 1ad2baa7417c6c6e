import Foundation
import SessionKit
import SessionKitTesting

/// A DPoP refresh against a bearer refresh, both as an app runs them (``BenchmarkSession``: the
/// request suspends in the ``SuspendingTransport``, the rotated tokens are written durably to a
/// `FileCredentialStore`, the id_token is verified).
///
/// `dpop` is a session that requires DPoP against a simulated provider that checks every proof
/// (signature, `htm`, `htu`, `iat`, `jti`, nonce, the refresh token's key) and binds its tokens;
/// `bearer` is the same session and provider without DPoP. Batches of sequential `refresh()` calls
/// interleave; each round keeps each subject's fastest batch; ratio = dpop µs/refresh / bearer
/// µs/refresh (target ≤ 1.2), median over rounds. The provider's own proof checks are inside the
/// timed work (the simulated provider runs in this process), so the ratio overstates the client's
/// share.
///
/// Then 100 000 callers ask the DPoP session for a token when it is due: they cost one refresh
/// request between them.
struct DPoPRefreshBenchmark {
    enum Subject: String, CaseIterable, Sendable {
        case dpop
        case bearer
    }

    struct Result: Sendable {
        var microseconds: [Subject: Samples] = [:]
        var ratios = Samples()
        /// Token-endpoint requests per refresh, over every timed refresh.
        var requestsPerRefresh: [Subject: Double] = [:]
        var concurrentCallers = 0
        var concurrentRefreshRequests = 0
    }

    var batches = 6
    var refreshesPerBatch = 40
    private(set) var result = Result()
    private var refreshes = 0
    private let sessions: [Subject: BenchmarkSession]
    private let requestsBefore: [Subject: Int]

    private init(sessions: [Subject: BenchmarkSession]) {
        self.sessions = sessions
        requestsBefore = sessions.mapValues { $0.provider.requestCount(grantType: "refresh_token") }
    }

    /// Both sessions, signed in.
    static func make() async throws -> DPoPRefreshBenchmark {
        var sessions: [Subject: BenchmarkSession] = [:]
        for subject in Subject.allCases {
            let session = try BenchmarkSession(dpop: subject == .dpop)
            try await session.signIn()
            sessions[subject] = session
        }
        guard let dpop = sessions[.dpop], try await dpop.store.load().session?.dpopKey != nil else {
            throw BenchmarkFailure("the DPoP session kept no key with its record")
        }
        return DPoPRefreshBenchmark(sessions: sessions)
    }

    /// One round: every subject's batches, interleaved.
    @concurrent
    mutating func runRound() async throws {
        let clock = ContinuousClock()
        var best: [Subject: Double] = [:]
        for _ in 0..<batches {
            for subject in Subject.allCases {
                guard let session = sessions[subject]?.session else { continue }
                let count = refreshesPerBatch
                let started = clock.now
                for _ in 0..<count { _ = try await session.refresh() }
                let elapsed = started.duration(to: clock.now)
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                let microseconds = seconds * 1e6 / Double(count)
                best[subject] = min(best[subject] ?? .infinity, microseconds)
            }
        }
        refreshes += batches * refreshesPerBatch
        for subject in Subject.allCases {
            result.microseconds[subject, default: Samples()].add(best[subject] ?? .nan)
            let requests = (sessions[subject]?.provider.requestCount(grantType: "refresh_token") ?? 0) - (requestsBefore[subject] ?? 0)
            result.requestsPerRefresh[subject] = Double(requests) / Double(refreshes)
        }
        result.ratios.add((best[.dpop] ?? .nan) / (best[.bearer] ?? .nan))
    }

    /// Forgets the samples so far (the warm-up round's).
    mutating func dropSamples() {
        result.microseconds = [:]
        result.ratios = Samples()
    }

    /// `callers` tasks ask a fresh DPoP session for a token at the moment its access token
    /// expires; the provider counts the refresh requests they cost.
    @concurrent
    mutating func runConcurrentCallers(_ callers: Int) async throws {
        let bench = try BenchmarkSession(dpop: true)
        try await bench.signIn()
        let before = bench.provider.requestCount(grantType: "refresh_token")
        bench.clock.advance(by: bench.provider.configuration.accessTokenLifetime)
        let session = bench.session
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<callers {
                group.addTask { _ = try await session.validAccessToken() }
            }
        }
        result.concurrentCallers = callers
        result.concurrentRefreshRequests = bench.provider.requestCount(grantType: "refresh_token") - before
        await bench.finish()
    }

    /// Shuts both sessions down and removes their stores.
    func finish() async {
        for session in sessions.values { await session.finish() }
    }
}
