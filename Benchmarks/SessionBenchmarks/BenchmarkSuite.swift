import BenchmarkSupport
import Foundation

/// Runs every session measure side by side, round after round, and turns the medians into ``Measure``s.
///
/// Interleaving matters on a shared machine: each round runs the fast path, the concurrent callers
/// and the simulated month once, so a burst of outside load hits every measure alike and the median
/// over rounds discards it.
struct BenchmarkSuite {
    var rounds: Int
    var fastPathIterations = 300_000
    var callerCounts = [1, 1_000, 10_000, 100_000]
    /// The groups to run (`fast-path`, `concurrent`, `month`, `cold-launch`, `idtoken`, `dpop`,
    /// `dpop-refresh`); all by default.
    var groups: Set<String> = Self.allGroups
    static let allGroups: Set<String> = ["fast-path", "concurrent", "month", "cold-launch", "idtoken", "dpop", "dpop-refresh"]
    static let dpopRefreshRatioLimit = 1.2
    /// Callers asking the DPoP session for a due token at once.
    var dpopCallers = 100_000
    /// A DPoP proof may cost at most this much of a bare OpenSSL ES256 sign of the same bytes.
    static let dpopProofRatioLimit = 1.3

    /// `validAccessToken()` on a fresh token, from an actor, over a bare call to a trivial actor.
    static let fastPathRatioLimit = 1.2
    /// A coalesced caller at the largest K costs at most this many times a caller parked under a
    /// lock on its own executor and resumed in one loop (the floor), measured in the same run.
    static let overFloorLimit = 1.5
    static let linearityLimit = 1.5
    /// Thirty simulated days (2 880 refreshes) over 2 880 bare refreshes on the same transport and
    /// kind of store, measured in the same round.
    static let monthOverFloorLimit = 1.3
    /// A cold launch's `restore()` against a bare read and decode of the same store file.
    static let coldLaunchRatioLimit = 1.5
    /// id_token validation, RS256 and ES256, at least this fraction of a raw OpenSSL verify's speed.
    static let idTokenRatioFloor = 0.9

    struct Result {
        var measures: [Measure]
        var fastPath: FastPathBenchmark
        var callers: ConcurrentCallersBenchmark
        var month: SimulatedMonthBenchmark
        var coldLaunch: ColdLaunchBenchmark
        var idToken: IDTokenBenchmark.Result
    }

    @concurrent
    func run(progress: @Sendable (String) -> Void) async throws -> Result {
        var fastPath = try await FastPathBenchmark.make(iterations: fastPathIterations)
        var callers = ConcurrentCallersBenchmark(counts: callerCounts)
        var month = SimulatedMonthBenchmark()
        var coldLaunch = try await ColdLaunchBenchmark.make()
        defer { coldLaunch.removeDirectory() }
        if groups.contains("cold-launch") { try await coldLaunch.runRound() }
        var idToken = try groups.contains("idtoken") ? IDTokenBenchmark.make() : nil
        idToken?.runRound()
        let idTokenWarmUp = idToken?.result
        var dpop = try groups.contains("dpop") ? DPoPProofBenchmark.make() : nil
        dpop?.runRound()
        let dpopWarmUp = dpop?.result
        var dpopRefresh = groups.contains("dpop-refresh") ? try await DPoPRefreshBenchmark.make() : nil
        try await dpopRefresh?.runRound()
        dpopRefresh?.dropSamples()
        // Warm-up: first-touch allocations and lazy initialisation stay out of the samples.
        if groups.contains("fast-path") {
            try await fastPath.runRound(0)
            await fastPath.finish()
            fastPath = try await FastPathBenchmark.make(iterations: fastPathIterations)
        }
        if groups.contains("concurrent") {
            var warmUp = ConcurrentCallersBenchmark(counts: [1, 1_000])
            try await warmUp.runRound(0)
            await warmUp.finish()
        }

        for round in 0..<rounds {
            progress("round \(round + 1)/\(rounds)")
            if groups.contains("fast-path") { try await fastPath.runRound(round) }
            if groups.contains("concurrent") { try await callers.runRound(round) }
            if groups.contains("month") { try await month.runRound() }
            if groups.contains("cold-launch") { try await coldLaunch.runRound() }
            idToken?.runRound()
            dpop?.runRound()
            try await dpopRefresh?.runRound()
        }
        // The first round warmed up; it is left out of the samples.
        let idTokenResult = idToken.map { Self.dropFirstRound($0.result, warmUp: idTokenWarmUp) } ?? IDTokenBenchmark.Result()
        await callers.finish()
        await fastPath.finish()
        guard fastPath.refreshCount() == 0 else { throw BenchmarkFailure("the fast-path session refreshed; its token was not fresh") }
        var measures = measures(fastPath, callers, month)
        if groups.contains("cold-launch") {
            let restore = coldLaunch.restoreMicroseconds.median
            let load = coldLaunch.loadMicroseconds.median
            measures.append(Measure("cold_launch.restore", restore, unit: "us"))
            measures.append(Measure("cold_launch.bare_load", load, unit: "us"))
            measures.append(Measure("cold_launch.ratio", restore / load, unit: "x", atMost: Self.coldLaunchRatioLimit))
            measures.append(
                Measure("cold_launch.token_requests", Double(coldLaunch.maximumRequests), unit: "requests", equalTo: 0))
        }
        if groups.contains("idtoken") { measures += idTokenMeasures(idTokenResult) }
        if let dpop {
            // The warm-up round is left out, as for the id_token group.
            let skip = dpopWarmUp == nil ? 0 : 1
            func trimmed(_ samples: Samples?) -> Samples {
                var kept = Samples()
                for value in (samples?.values ?? []).dropFirst(skip) { kept.add(value) }
                return kept
            }
            let ratios = trimmed(dpop.result.ratios)
            let proof = trimmed(dpop.result.nanoseconds[.proof])
            let raw = trimmed(dpop.result.nanoseconds[.raw])
            measures.append(Measure("dpop.proof", proof.median, unit: "ns"))
            measures.append(Measure("dpop.bare_sign", raw.median, unit: "ns"))
            measures.append(Measure("dpop.ratio", ratios.median, unit: "x", atMost: Self.dpopProofRatioLimit))
        }
        if var dpopRefresh {
            try await dpopRefresh.runConcurrentCallers(dpopCallers)
            await dpopRefresh.finish()
            let result = dpopRefresh.result
            measures.append(Measure("dpop.refresh", result.microseconds[.dpop]?.median ?? .nan, unit: "us"))
            measures.append(Measure("dpop.bearer_refresh", result.microseconds[.bearer]?.median ?? .nan, unit: "us"))
            measures.append(Measure("dpop.refresh_ratio", result.ratios.median, unit: "x", atMost: Self.dpopRefreshRatioLimit))
            measures.append(
                Measure("dpop.requests_per_refresh", result.requestsPerRefresh[.dpop] ?? .nan, unit: "requests", equalTo: 1))
            measures.append(
                Measure(
                    "dpop.callers_\(result.concurrentCallers).refresh_requests", Double(result.concurrentRefreshRequests),
                    unit: "requests", equalTo: 1))
        }
        return Result(
            measures: measures, fastPath: fastPath, callers: callers, month: month, coldLaunch: coldLaunch, idToken: idTokenResult)
    }

    private static func dropFirstRound(_ result: IDTokenBenchmark.Result, warmUp: IDTokenBenchmark.Result?) -> IDTokenBenchmark.Result {
        guard warmUp != nil else { return result }
        var trimmed = IDTokenBenchmark.Result()
        for (pair, samples) in result.nanoseconds {
            for value in samples.values.dropFirst() { trimmed.nanoseconds[pair, default: Samples()].add(value) }
        }
        for (pair, samples) in result.ratios {
            for value in samples.values.dropFirst() { trimmed.ratios[pair, default: Samples()].add(value) }
        }
        return trimmed
    }

    private func idTokenMeasures(_ result: IDTokenBenchmark.Result) -> [Measure] {
        var measures: [Measure] = []
        for algorithm in IDTokenBenchmark.Algorithm.allCases {
            let prefix = "idtoken.\(algorithm.rawValue.lowercased())"
            func pair(_ body: IDTokenBenchmark.Body) -> IDTokenBenchmark.Pair { .init(algorithm: algorithm, body: body) }
            measures.append(Measure("\(prefix).validate", result.nanoseconds[pair(.validate)]?.median ?? .nan, unit: "ns/op"))
            measures.append(Measure("\(prefix).jose_only", result.nanoseconds[pair(.jose)]?.median ?? .nan, unit: "ns/op"))
            measures.append(Measure("\(prefix).raw_openssl_verify", result.nanoseconds[pair(.raw)]?.median ?? .nan, unit: "ns/op"))
            measures.append(Measure("\(prefix).jose_only.ratio", result.ratios[pair(.jose)]?.median ?? .nan, unit: "x"))
            measures.append(
                Measure("\(prefix).ratio", result.ratios[pair(.validate)]?.median ?? .nan, unit: "x", atLeast: Self.idTokenRatioFloor))
        }
        return measures
    }

    private func measures(_ fastPath: FastPathBenchmark, _ callers: ConcurrentCallersBenchmark, _ month: SimulatedMonthBenchmark)
        -> [Measure]
    {
        var measures: [Measure] = []
        if groups.contains("fast-path") { measures += fastPathMeasures(fastPath) }
        if groups.contains("concurrent") { measures += callerMeasures(callers) }
        if groups.contains("month") {
            measures.append(Measure("month.wall_time", month.milliseconds.median / 1e3, unit: "s"))
            measures.append(Measure("month.bare_refresh_floor", month.floorMilliseconds.median / 1e3, unit: "s"))
            measures.append(Measure("month.over_floor", month.ratios.median, unit: "x", atMost: Self.monthOverFloorLimit))
            measures.append(Measure("month.cpu_time", month.cpuMilliseconds.median / 1e3, unit: "s"))
            measures.append(Measure("month.floor_cpu_time", month.floorCPUMilliseconds.median / 1e3, unit: "s"))
            measures.append(Measure("month.cpu_over_floor_cpu", month.cpuRatios.median, unit: "x"))
            measures.append(Measure("month.key_set_fetches", Double(month.keySetFetches.max() ?? 0), unit: "requests"))
            // Any round that refreshed a different number of times is the one shown.
            let refreshes = month.refreshCounts.first { $0 != SimulatedMonthBenchmark.refreshes } ?? SimulatedMonthBenchmark.refreshes
            measures.append(
                Measure("month.refresh_requests", Double(refreshes), unit: "requests", equalTo: Double(SimulatedMonthBenchmark.refreshes)))
        }
        return measures
    }

    private func fastPathMeasures(_ fastPath: FastPathBenchmark) -> [Measure] {
        var measures: [Measure] = []
        for caller in FastPathBenchmark.Caller.allCases {
            let prefix = caller == .actor ? "fast_path" : "fast_path.from_task"
            for callee in FastPathBenchmark.Callee.allCases {
                let pair = FastPathBenchmark.Pair(caller: caller, callee: callee)
                let name =
                    switch callee {
                    case .session: "valid_access_token"
                    case .bareActor: "bare_actor_call"
                    case .testClockSession: "test_clock.valid_access_token"
                    case .frozenClockSession: "frozen_clock.valid_access_token"
                    }
                measures.append(Measure("\(prefix).\(name)", fastPath.nanoseconds[pair]?.median ?? .nan, unit: "ns/op"))
            }
            for callee in [FastPathBenchmark.Callee.session, .testClockSession, .frozenClockSession] {
                let ratio = fastPath.ratios[FastPathBenchmark.Pair(caller: caller, callee: callee)]?.median ?? .nan
                let name = callee == .session ? "ratio" : callee == .testClockSession ? "test_clock.ratio" : "frozen_clock.ratio"
                if caller == .actor && callee == .session {
                    measures.append(Measure("\(prefix).\(name)", ratio, unit: "x", atMost: Self.fastPathRatioLimit))
                } else {
                    measures.append(Measure("\(prefix).\(name)", ratio, unit: "x"))
                }
            }
        }
        return measures
    }

    private func callerMeasures(_ callers: ConcurrentCallersBenchmark) -> [Measure] {
        var measures = [Measure("concurrent.k1.fixed_cost", callers.median(1, \.total) / 1e3, unit: "us")]
        for count in callerCounts {
            let prefix = "concurrent.k\(count)"
            measures.append(Measure("\(prefix).token_requests", Double(callers.refreshRequests(count)), unit: "requests", equalTo: 1))
            measures.append(
                Measure(
                    "\(prefix).callers_served", callers.allServed(count) ? 1 : 0, unit: "all", target: "== 1",
                    pass: callers.allServed(count)))
            guard count > 1 else { continue }
            let perWaiter = callers.perWaiter(count, \.total) / 1e3
            measures.append(Measure("\(prefix).per_waiter", perWaiter, unit: "us"))
            measures.append(Measure("\(prefix).join_per_waiter", callers.perWaiter(count, \.join) / 1e3, unit: "us"))
            measures.append(Measure("\(prefix).resume_per_waiter", callers.perWaiter(count, \.resume) / 1e3, unit: "us"))
            let floor = callers.perWaiter(count, \.total, of: .floor) / 1e3
            measures.append(Measure("\(prefix).floor_per_waiter", floor, unit: "us"))
            measures.append(Measure("\(prefix).floor_join_per_waiter", callers.perWaiter(count, \.join, of: .floor) / 1e3, unit: "us"))
            measures.append(Measure("\(prefix).floor_resume_per_waiter", callers.perWaiter(count, \.resume, of: .floor) / 1e3, unit: "us"))
            if count == callerCounts.max() {
                measures.append(Measure("\(prefix).over_floor", perWaiter / floor, unit: "x", atMost: Self.overFloorLimit))
            } else {
                measures.append(Measure("\(prefix).over_floor", perWaiter / floor, unit: "x"))
            }
            let actorFloor = callers.perWaiter(count, \.total, of: .actorFloor) / 1e3
            measures.append(Measure("\(prefix).actor_floor_per_waiter", actorFloor, unit: "us"))
            measures.append(Measure("\(prefix).over_actor_floor", perWaiter / actorFloor, unit: "x"))
        }
        let sorted = callerCounts.sorted()
        if sorted.count >= 3 {
            let largest = sorted[sorted.count - 1]
            let previous = sorted[sorted.count - 2]
            let linearity = callers.perWaiter(largest, \.total) / callers.perWaiter(previous, \.total)
            measures.append(Measure("concurrent.linearity_k\(largest)_vs_k\(previous)", linearity, unit: "x", atMost: Self.linearityLimit))
        }
        return measures
    }
}

/// The benchmark could not measure what it meant to.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
