import Foundation
import SessionKit
import SessionKitTesting
import Synchronization

/// K callers ask for a token at the moment it is due, against the simulated provider whose token
/// endpoint is scripted to answer slowly (in simulated time), so every caller joins the one refresh
/// before the response exists. The session is wired as an app's (``BenchmarkSession``): its refresh
/// suspends in the ``SuspendingTransport`` and writes the result durably to a `FileCredentialStore`.
///
/// One run, timed on the real clock:
/// - t0: just before the callers are launched (one task running a discarding task group of K tasks);
/// - t1: all K callers are registered as waiters (the provider is sleeping on the test clock and
///   `waitingCallerCount == K`);
/// - t2: the test clock was moved to the response's deadline (t2 - t1 is one synchronous call);
/// - t3: the last caller returned (read inside the callers' task the moment the group ends).
///
/// join = t1 - t0, resume = t3 - t2, total = t3 - t0. Per waiter = (total(K) - median total(1)) / K.
///
/// The same harness drives two ``BareCoalescer``s: ``LockCoalescer``, whose per-waiter cost is the
/// floor Swift's tasks and executors set on this machine, and ``ActorCoalescer``, what the plainest
/// actor-based coalescer costs. From t2 a floor does the bare work of the one refresh (a
/// ``BareRefresh`` on the same transport and kind of store) and then resumes everyone, as the
/// session resumes its callers only after its refresh is verified and durable. That work is the
/// same for every K, so per waiter it cancels out; it keeps each run's shape like the session's.
struct ConcurrentCallersBenchmark {
    /// What the callers wait on.
    enum Subject: String, CaseIterable, Sendable {
        case session
        /// ``LockCoalescer``.
        case floor
        /// ``ActorCoalescer``.
        case actorFloor = "actor_floor"
    }

    /// One run's timings, in nanoseconds, and what it checked.
    struct Run: Sendable {
        var callers: Int
        var join: Double
        var resume: Double
        var total: Double
        /// Process CPU time from t0 to t3, all threads.
        var cpu: Double
        var refreshRequests: Int
        var served: Int
        var polls: Int
    }

    let counts: [Int]
    private(set) var runs: [Subject: [Int: [Run]]] = [:]
    /// The floors' refresh, made on the first round.
    private var bareRefresh: BareRefresh?

    init(counts: [Int]) {
        self.counts = counts
    }

    /// One round: every K once, in an order that rotates from round to round.
    @concurrent
    mutating func runRound(_ round: Int) async throws {
        var bare: BareRefresh
        if let made = bareRefresh {
            bare = made
        } else {
            bare = try await BareRefresh.make(on: BenchmarkSession())
        }
        defer { bareRefresh = bare }
        let shift = round % counts.count
        for callers in counts[shift...] + counts[..<shift] {
            for subject in round.isMultiple(of: 2) ? Subject.allCases : Subject.allCases.reversed() {
                let run =
                    switch subject {
                    case .session: try await Self.run(callers: callers)
                    case .floor: try await Self.runFloor(callers: callers, on: LockCoalescer(token: Self.floorToken), refreshing: &bare)
                    case .actorFloor:
                        try await Self.runFloor(callers: callers, on: ActorCoalescer(token: Self.floorToken), refreshing: &bare)
                    }
                runs[subject, default: [:]][callers, default: []].append(run)
            }
        }
    }

    /// Removes the floors' store.
    mutating func finish() async {
        await bareRefresh?.finish()
        bareRefresh = nil
    }

    /// The median of a timing over the rounds for `callers`.
    func median(_ callers: Int, _ timing: KeyPath<Run, Double>, of subject: Subject = .session) -> Double {
        var samples = Samples()
        for run in runs[subject]?[callers] ?? [] { samples.add(run[keyPath: timing]) }
        return samples.median
    }

    /// Cost per waiter for `callers`, in nanoseconds: the median over rounds of
    /// `(timing(K) - median timing(1)) / K`.
    func perWaiter(_ callers: Int, _ timing: KeyPath<Run, Double>, of subject: Subject = .session) -> Double {
        let fixed = median(1, timing, of: subject)
        var samples = Samples()
        for run in runs[subject]?[callers] ?? [] { samples.add((run[keyPath: timing] - fixed) / Double(callers)) }
        return samples.median
    }

    /// The largest refresh-request count any run of `callers` saw (it must be 1).
    func refreshRequests(_ callers: Int) -> Int {
        (runs[.session]?[callers] ?? []).map(\.refreshRequests).max() ?? 0
    }

    /// Whether every run of `callers` served all of them a token.
    func allServed(_ callers: Int) -> Bool {
        Subject.allCases.allSatisfy { subject in (runs[subject]?[callers] ?? []).allSatisfy { $0.served == $0.callers } }
    }

    /// The median number of `waitingCallerCount` polls before all callers had joined.
    func polls(_ callers: Int, of subject: Subject = .session) -> Int {
        var samples = Samples()
        for run in runs[subject]?[callers] ?? [] { samples.add(Double(run.polls)) }
        return Int(samples.median)
    }

    @concurrent
    private static func run(callers: Int) async throws -> Run {
        let environment = try BenchmarkSession()
        let session = environment.session
        try await environment.signIn()
        // The one-hour token is now due within the 60 s lead time.
        environment.clock.advance(by: .seconds(3540))
        environment.provider.script(.slow(.milliseconds(250)), on: .token)
        let refreshesBefore = environment.provider.requestCount(grantType: "refresh_token")

        let clock = ContinuousClock()
        let served = Counter()
        let cpu0 = ProcessCPUTime.now()
        let t0 = clock.now
        let callersTask = Task {
            await withDiscardingTaskGroup { group in
                for _ in 0..<callers {
                    group.addTask {
                        if (try? await session.validAccessToken()) != nil { served.increment() }
                    }
                }
            }
            return clock.now
        }
        await environment.clock.waitForSleepers(count: 1)
        var polls = 0
        while session.waitingCallerCount < callers {
            polls += 1
            await Task.yield()
        }
        let t1 = clock.now
        environment.clock.advanceToNextDeadline()
        let t2 = clock.now
        let t3 = await callersTask.value
        let cpu = ProcessCPUTime.now() - cpu0
        let refreshRequests = environment.provider.requestCount(grantType: "refresh_token") - refreshesBefore
        await environment.finish()
        return Run(
            callers: callers, join: t0.duration(to: t1).nanoseconds, resume: t2.duration(to: t3).nanoseconds,
            total: t0.duration(to: t3).nanoseconds, cpu: cpu.nanoseconds, refreshRequests: refreshRequests, served: served.value,
            polls: polls)
    }
}

extension ConcurrentCallersBenchmark {
    fileprivate static let floorToken = BaselineTokenSource.Token(value: String(repeating: "x", count: 40), expiresAt: .distantFuture)

    @concurrent
    fileprivate static func runFloor(callers: Int, on coalescer: some BareCoalescer, refreshing bare: inout BareRefresh) async throws
        -> Run
    {
        let clock = ContinuousClock()
        let served = Counter()
        let cpu0 = ProcessCPUTime.now()
        let t0 = clock.now
        let callersTask = Task {
            await withDiscardingTaskGroup { group in
                for _ in 0..<callers {
                    group.addTask {
                        if await coalescer.value().expiresAt == .distantFuture { served.increment() }
                    }
                }
            }
            return clock.now
        }
        var polls = 0
        while await coalescer.waitingCount < callers {
            polls += 1
            await Task.yield()
        }
        let t1 = clock.now
        let t2 = clock.now
        try await bare.refresh()
        await coalescer.resumeAll()
        let t3 = await callersTask.value
        let cpu = ProcessCPUTime.now() - cpu0
        return Run(
            callers: callers, join: t0.duration(to: t1).nanoseconds, resume: t2.duration(to: t3).nanoseconds,
            total: t0.duration(to: t3).nanoseconds, cpu: cpu.nanoseconds, refreshRequests: 0, served: served.value, polls: polls)
    }
}

/// Counts callers that received a token, from many tasks at once.
private final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() {
        count.add(1, ordering: .relaxed)
    }

    var value: Int {
        count.load(ordering: .relaxed)
    }
}
