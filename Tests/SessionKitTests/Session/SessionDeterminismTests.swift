import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// A scenario run on fresh environments with the same seed gives the same event log, dates,
/// jittered delays and provider requests included.
@Suite("Session determinism")
struct SessionDeterminismTests {
    /// What one run produced: the session's events and the provider's request log.
    struct Run: Equatable {
        var events: [SessionEvent]
        var requests: [SimulatedProviderLogEntry]
    }

    /// Outage sign-out with jitter, preceded by a refresh that fails once: every delay is drawn
    /// from the seeded random source.
    static func outageSignOut(seed: UInt64) async throws -> Run {
        let env = try SimulatedSessionEnvironment(seed: seed)
        await env.startRecording()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()

        env.clock.advance(by: .seconds(3540))
        env.provider.script(.connectionFailure, on: .token)
        let caller = Task { try await env.session.validAccessToken() }
        await env.clock.waitForSleepers(count: 1)
        // Inside the lead time the caller is handed the current token; the retry refreshes it.
        _ = try await caller.value
        env.clock.advanceToNextDeadline()
        await env.waitForStage(.active)

        env.provider.script(.serverError(status: 503), on: .revocation, times: 3)
        env.provider.script(.timeout, on: .revocation)
        env.provider.script(.rateLimited(retryAfterSeconds: 30), on: .revocation)
        let signOut = Task { try await env.session.signOut() }
        // Three backoffs, the 30 s timeout and its backoff, then the Retry-After wait.
        for _ in 0..<6 {
            await env.clock.waitForSleepers(count: 1)
            env.clock.advanceToNextDeadline()
        }
        try await signOut.value
        return Run(events: env.events, requests: env.provider.requestLog)
    }

    @Test("outage sign-out with jitter, 20 runs with one seed: identical event logs")
    func sameSeedSameLog() async throws {
        var runs: [Run] = []
        for _ in 0..<20 {
            runs.append(try await Self.outageSignOut(seed: 42))
        }
        let reference = runs[0]
        for (index, run) in runs.enumerated() {
            #expect(run == reference, "run \(index) differs")
        }

        // The log is the full story, not an empty one: every retry with its jittered delay and date.
        let retries = reference.events.compactMap { event -> Double? in
            guard case .transition(let transition) = event, case .retrying(_, let after, _) = transition.reason.kind else { return nil }
            return after
        }
        #expect(retries.count == 6)
        #expect(retries.last == 30)
        #expect(retries.dropLast().allSatisfy { $0 > 0 && $0 != $0.rounded() })
        #expect(
            reference.events.last
                == .transition(
                    SessionTransition(
                        from: .revoking, to: .signedOut, reason: .revocationConfirmed,
                        date: try #require(reference.requests.last?.receivedAt))))
        #expect(reference.requests.count == 2 + 2 + 6)
    }

    @Test("another seed draws other delays: the jitter really comes from the injected source")
    func otherSeedOtherLog() async throws {
        let first = try await Self.outageSignOut(seed: 42)
        let second = try await Self.outageSignOut(seed: 43)
        #expect(first != second)
        #expect(first.events.count == second.events.count)
        let stages = { (run: Run) in
            run.events.compactMap { event -> String? in
                guard case .transition(let transition) = event else { return nil }
                return "\(transition.from.map(\.rawValue) ?? "nil")→\(transition.to)"
            }
        }
        #expect(stages(first) == stages(second))
    }
}
