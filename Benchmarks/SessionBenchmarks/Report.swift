import BenchmarkSupport
import Foundation

/// The readable form of a run: how each number was obtained, then the tables.
enum Report {
    static func header(rounds: Int, suite: BenchmarkSuite) -> String {
        """
        SessionKit session benchmarks — release build, \(rounds) rounds, medians reported.
        Each round runs every measure once, side by side, so outside load hits them alike.
        Every session and every floor that refreshes is wired as an app is: each request suspends in
        a transport that parks the task and has another thread resume it (as URLSession does) before
        the simulated provider answers, and credentials go to a FileCredentialStore, which writes
        durably (fsync), in \(FileManager.default.temporaryDirectory.path) (set TMPDIR to a disk, not a tmpfs).

        fast path   validAccessToken() on an active session with a fresh token, against a bare call to a
                    trivial actor returning a value of the same shape (a string and a date; the value
                    is a `var`, so the call needs the actor). Batches of \(suite.fastPathIterations) calls; each round
                    runs one batch per (caller, callee) pair, in an order that rotates.
                    callers: "actor" = app code on its own actor that uses each result in its own
                    state, so each call is a real round trip between executors (the target applies
                    here); "task" = a loop outside any actor, where the compiler may leave the task on
                    the callee's executor between calls, so the bare call is a floor (context).
                    callees: session = wired as an app wires it (ContinuousClock, the system wall
                    clock); test_clock_session = the test kit's (TestClock wall clock); frozen_clock_session =
            the first with a wall clock that returns a fixed date (cost apart from reading the time); bare_actor.
                    ratio = median over rounds of (callee ns/op / bare_actor ns/op, same caller).
        concurrent  K callers ask for a token while it is due; the simulated token endpoint is scripted
                    slow (250 ms of simulated time), so all K join before the response exists.
                    t0 launch of the callers (one task, a discarding group of K tasks)
                    t1 all K are waiting: provider asleep on the test clock and waitingCallerCount == K
                       (polled with Task.yield between polls; a poll queues behind the callers still
                       starting, so it adds at most one round trip, and the poll count is shown)
                    t2 test clock advanced to the response's deadline (t1→t2 is one synchronous call)
                    t3 the last caller returned (read inside the callers' task as its group ends)
                    join = t1−t0, resume = t3−t2, total = t3−t0.
                    per waiter = median over rounds of (total(K) − median total(1)) / K; join and
                    resume per waiter likewise against their own K=1 medians; cpu = process CPU time
                    (both cores) from t0 to t3, per waiter the same way. token requests = refresh
                    grants the provider saw in the run (must be 1). linearity = per waiter at the
                    largest K / per waiter at the next.
                    floor: the same harness on bare code that parks callers as stored continuations
                    under a lock, on their own executor, and from t2 does one bare refresh (as in
                    month) and resumes them in one loop (no ids, no cancellation handlers, no state
                    machine): what Swift's tasks and executors cost per waiter on this machine.
                    actor floor: the same, parked on an actor (a hop on and off it per caller), for
                    context. over_floor = session per waiter / floor per waiter.
        month       30 simulated days, one validAccessToken() every 15 minutes with 15.5-minute access
                    tokens (due after 14.5): \(SimulatedMonthBenchmark.refreshes) refreshes, each a real RS256 signature by
                    the simulated provider and a real RS256 verification by the session, on a TestClock.
                    wall time from the first step to the last, sign-in excluded; cpu time of the
                    process over the same steps, for context on a shared machine.
        idtoken     id_token validation with a cached key (IDTokenValidator.validate: parse, key choice,
                    signature, every claim check, at_hash), RS256 (2048-bit) and ES256 (P-256), against a
                    raw OpenSSL verify of the same token (EVP_DigestVerify over the signing input, key
                    built and signature decoded beforehand; for ES256 already converted to DER); jose =
                    CompactJWS.verify alone (no claims). Per round each body runs 8 batches of 150
                    calls, interleaved, and keeps its fastest batch; ratio = raw ns/op / body ns/op
                    (1 = as fast as the raw verify), median over rounds (the first round is a warm-up).
        dpop        a DPoP proof (DPoPProofSigner.proof for a UserInfo request with ath and a nonce:
                    claims, a CSPRNG jti, the signature in r||s form, the JWS assembled) against one bare
                    OpenSSL ES256 sign (EVP_DigestSign) of the same bytes with the same key; 8 batches of
                    200 calls per round, interleaved, fastest batch kept; ratio = proof / bare sign.
                    tokens (due after 14.5): \(SimulatedMonthBenchmark.refreshes) refreshes, each a suspension in the
                    transport, a real RS256 signature by the simulated provider, a real RS256
                    verification by the session and a durable write, on a TestClock (the key set is
                    fetched again each hour, as the default time to live says). Wall time from the
                    first step to the last, sign-in excluded.
                    floor: \(SimulatedMonthBenchmark.refreshes) bare refreshes on the same provider, transport and kind of
                    store: one suspension, the provider's signature, one RS256 verification, one
                    durable write; no lease, no store read, no claim checks, no state machine. After
                    each simulated day's 96 steps, 96 bare refreshes. over_floor = median over rounds
                    of (month wall time / floor wall time, same round). cpu times of the process over
                    the same steps, for context: the work without the wait for the disk.
        cold launch a new Session on the FileCredentialStore holding a valid session and its restore()
                    (no request may reach the provider), against a new FileCredentialStore and its
                    load(); 200 of each per round, alternating; ratio = median restore / median load.
        Wall time is read from ContinuousClock.
        """
    }

    static func fastPathTable(_ fastPath: FastPathBenchmark) -> String {
        var lines = [
            row(
                ["caller", "callee", "median ns", "min ns", "max ns", "ratio", "ratio min", "ratio max"],
                widths: [8, 20, 10, 10, 10, 8, 10, 10])
        ]
        for caller in FastPathBenchmark.Caller.allCases {
            for callee in FastPathBenchmark.Callee.allCases {
                let pair = FastPathBenchmark.Pair(caller: caller, callee: callee)
                let samples = fastPath.nanoseconds[pair] ?? Samples()
                let ratio = fastPath.ratios[pair]
                lines.append(
                    row(
                        [
                            caller.rawValue, callee.rawValue, fixed(samples.median, 1), fixed(samples.minimum, 1),
                            fixed(samples.maximum, 1),
                            ratio.map { fixed($0.median, 2) } ?? "—", ratio.map { fixed($0.minimum, 2) } ?? "—",
                            ratio.map { fixed($0.maximum, 2) } ?? "—",
                        ], widths: [8, 20, 10, 10, 10, 8, 10, 10]))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func callersTable(_ callers: ConcurrentCallersBenchmark) -> String {
        let widths = [8, 8, 6, 5, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]
        var lines = [
            row(
                ["", "", "", "", "session", "", "", "per waiter µs", "", "", "", "floor µs/w", "", "actor µs/w"], widths: widths),
            row(
                [
                    "K", "requests", "served", "polls", "join ms", "resume ms", "total ms", "join", "resume", "total", "cpu", "total",
                    "cpu", "total",
                ],
                widths: widths),
        ]
        for count in callers.counts {
            let perWaiter: (KeyPath<ConcurrentCallersBenchmark.Run, Double>, ConcurrentCallersBenchmark.Subject) -> String = {
                timing, subject in
                count == 1 ? "—" : fixed(callers.perWaiter(count, timing, of: subject) / 1e3, 2)
            }
            lines.append(
                row(
                    [
                        String(count), String(callers.refreshRequests(count)), callers.allServed(count) ? "all" : "NOT ALL",
                        String(callers.polls(count)),
                        fixed(callers.median(count, \.join) / 1e6, 2), fixed(callers.median(count, \.resume) / 1e6, 2),
                        fixed(callers.median(count, \.total) / 1e6, 2), perWaiter(\.join, .session), perWaiter(\.resume, .session),
                        perWaiter(\.total, .session), perWaiter(\.cpu, .session), perWaiter(\.total, .floor), perWaiter(\.cpu, .floor),
                        perWaiter(\.total, .actorFloor),
                    ], widths: widths))
        }
        return lines.joined(separator: "\n")
    }

    static func idTokenTable(_ result: IDTokenBenchmark.Result) -> String {
        let widths = [6, 9, 12, 12, 12, 8, 10, 10]
        var lines = [row(["alg", "body", "median ns", "min ns", "max ns", "ratio", "ratio min", "ratio max"], widths: widths)]
        for algorithm in IDTokenBenchmark.Algorithm.allCases {
            for body in IDTokenBenchmark.Body.allCases {
                let pair = IDTokenBenchmark.Pair(algorithm: algorithm, body: body)
                let samples = result.nanoseconds[pair] ?? Samples()
                let ratio = result.ratios[pair] ?? Samples()
                lines.append(
                    row(
                        [
                            algorithm.rawValue, body.rawValue, fixed(samples.median, 0), fixed(samples.minimum, 0),
                            fixed(samples.maximum, 0), fixed(ratio.median, 3), fixed(ratio.minimum, 3), fixed(ratio.maximum, 3),
                        ], widths: widths))
            }
        }
        return lines.joined(separator: "\n")
    }

    static func measuresTable(_ measures: [Measure]) -> String {
        var lines = [row(["measure", "value", "unit", "target", "verdict"], widths: [52, 10, 9, 10, 7])]
        for measure in measures {
            lines.append(
                row(
                    [measure.name, Measure.format(measure.value), measure.unit, measure.target ?? "—", verdict(measure)],
                    widths: [52, 10, 9, 10, 7]))
        }
        return lines.joined(separator: "\n")
    }

    /// Only the measures held to a target, one line each.
    static func targetsTable(_ measures: [Measure]) -> String {
        var lines = ["targets:"]
        for measure in measures where measure.target != nil {
            lines.append(
                "  "
                    + row(
                        [measure.name, Measure.format(measure.value), measure.unit, measure.target ?? "", verdict(measure)],
                        widths: [52, 10, 9, 10, 7]))
        }
        return lines.joined(separator: "\n")
    }

    /// PASS or MISS for a measure held to a target, a dash for one shown for context.
    private static func verdict(_ measure: Measure) -> String {
        measure.target == nil ? "—" : measure.pass ? "PASS" : "MISS"
    }

    static func spread(_ label: String, _ samples: Samples, scale: Double, unit: String) -> String {
        "\(label): median \(fixed(samples.median * scale, 2)) \(unit), min \(fixed(samples.minimum * scale, 2)), max \(fixed(samples.maximum * scale, 2))"
    }

    private static func fixed(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    private static func row(_ cells: [String], widths: [Int]? = nil) -> String {
        let widths = widths ?? Array(repeating: 11, count: cells.count)
        return zip(cells, widths).map { cell, width in
            cell.count >= width ? cell : cell + String(repeating: " ", count: width - cell.count)
        }.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
