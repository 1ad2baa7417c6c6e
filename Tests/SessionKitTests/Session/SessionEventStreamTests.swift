import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `Session.events()`: each new subscriber first gets the current stage, then everything after, in order.
@Suite("Session event stream")
struct SessionEventStreamTests {
    private func transition(_ event: SessionEvent?) throws -> SessionTransition {
        guard case .transition(let transition)? = event else {
            Issue.record("expected a transition, got \(String(describing: event))")
            throw CancellationError()
        }
        return transition
    }

    @Test("a new subscriber first receives the current stage with from == nil, then every later event")
    func replaysCurrentStage() async throws {
        let h = try SimulatedSessionEnvironment()
        var early = h.session.events().makeAsyncIterator()
        let first = try transition(await early.next())
        #expect(first == SessionTransition(from: nil, to: .signedOut, reason: .current, date: h.epoch))

        try await h.signIn()
        for expected in [(SessionStage.signedOut, SessionStage.handoff), (.handoff, .verifying), (.verifying, .active)] {
            let next = try transition(await early.next())
            #expect(next.from == expected.0)
            #expect(next.to == expected.1)
        }

        h.clock.advance(by: .seconds(600))
        var late = h.session.events().makeAsyncIterator()
        let replay = try transition(await late.next())
        #expect(replay == SessionTransition(from: nil, to: .active, reason: .current, date: h.epoch + 600))

        // Both subscribers see the same later events, in the same order.
        _ = try await h.session.refresh()
        try await h.session.deleteAccount()
        let expected: [SessionEvent] = [
            .transition(SessionTransition(from: .active, to: .refreshing, reason: .refreshRequested, date: h.epoch + 600)),
            .transition(SessionTransition(from: .refreshing, to: .active, reason: .refreshed(callers: 1), date: h.epoch + 600)),
            .transition(SessionTransition(from: .active, to: .disconnecting, reason: .accountDeletionRequested, date: h.epoch + 600)),
            .transition(SessionTransition(from: .disconnecting, to: .signedOut, reason: .accountDeleted, date: h.epoch + 600)),
            .deleteUserData(subject: "alice"),
        ]
        for event in expected {
            #expect(await early.next() == event)
            #expect(await late.next() == event)
        }
        var afterwards = h.session.events().makeAsyncIterator()
        #expect(try transition(await afterwards.next()).to == .signedOut)
    }

    @Test("a subscriber during a refresh sees refreshing, then the outcome")
    func replaysTransientStage() async throws {
        let h = try SimulatedSessionEnvironment()
        try await h.signIn()
        h.clock.advance(by: .seconds(3540))
        h.provider.script(.slow(.seconds(2)), on: .token)
        let session = h.session
        let caller = Task { try await session.validAccessToken() }
        await h.clock.waitForSleepers(count: 1)
        await h.waitUntil("the caller waits") { session.waitingCallerCount == 1 }

        var iterator = session.events().makeAsyncIterator()
        #expect(
            try transition(await iterator.next()) == SessionTransition(from: nil, to: .refreshing, reason: .current, date: h.epoch + 3540))
        h.clock.advanceToNextDeadline()
        _ = try await caller.value
        #expect(
            try transition(await iterator.next())
                == SessionTransition(from: .refreshing, to: .active, reason: .refreshed(callers: 1), date: h.epoch + 3542))
    }
}
