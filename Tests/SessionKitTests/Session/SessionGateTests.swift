import Foundation
import SessionKitTesting
import Testing

@testable import SessionKit

/// Callers that join a refresh in flight queue at the session's gate instead of entering the actor;
/// the machine still decides everything about them.
@Suite("Session gate")
struct SessionGateTests {
    typealias Step = SessionHarness.Step
    typealias Caller = Task<SessionCallResult<AccessToken>, Never>

    /// Signs in, lets the token become due, scripts a slow refresh answer and starts one caller,
    /// which starts the refresh through the machine; then starts `count` more callers and returns
    /// once all of them are queued at the gate.
    private func queuedCallers(
        _ h: SessionHarness, count: Int, answer: SimulatedProviderFault = .slow(.seconds(1))
    ) async throws -> (first: Caller, queued: [Caller]) {
        await h.startRecording()
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3540))
        h.provider.script(answer, on: .token)
        let session = h.session
        let first = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.clock.waitForSleepers(count: 1)
        #expect(await session.stage == .refreshing)
        #expect(session.queuedCallerCount == 0)
        var queued: [Caller] = []
        for _ in 0..<count {
            queued.append(Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } })
        }
        await h.waitUntil("\(count) callers queued") { session.queuedCallerCount == count }
        #expect(await session.waitingCallerCount == count + 1)
        return (first, queued)
    }

    @Test("callers joining a refresh queue at the gate, count as waiting, and get the one refreshed token")
    func queuedCallersShareTheRefresh() async throws {
        let h = try SessionHarness()
        let (first, queued) = try await queuedCallers(h, count: 20)

        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        for caller in queued { #expect(await caller.value.value == token) }
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.session.queuedCallerCount == 0)
        // Fed into the machine before the refresh's result: counted with the first caller.
        #expect(
            h.steps.suffix(2) == [
                .move(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: 21)),
            ])
    }

    @Test("a queued caller's cancellation takes only it out of the gate, at once")
    func cancellingAQueuedCaller() async throws {
        let h = try SessionHarness()
        let (first, queued) = try await queuedCallers(h, count: 3)
        queued[1].cancel()
        #expect(await queued[1].value.error == .cancelled)
        #expect(h.session.queuedCallerCount == 2)
        #expect(await h.session.waitingCallerCount == 3)

        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        #expect(await queued[0].value.value == token)
        #expect(await queued[2].value.value == token)
        #expect(h.steps.last == .move(.refreshing, .active, .refreshed(callers: 3)))
    }

    @Test("a caller cancelled after the machine took it over is removed by the machine")
    func cancellingACallerTheMachineHolds() async throws {
        let h = try SessionHarness()
        let (first, queued) = try await queuedCallers(h, count: 2)
        // Any step feeds the queue into the machine first: here, one more caller through the actor.
        let session = h.session
        let forced = Task { await SessionCallResult { () async throws(SessionError) in try await session.refresh() } }
        await h.waitUntil("the queue fed into the machine") { await session.waitingCallerCount == 4 && session.queuedCallerCount == 0 }
        queued[0].cancel()
        #expect(await queued[0].value.error == .cancelled)
        await h.waitUntil("three callers left") { await session.waitingCallerCount == 3 }

        h.clock.advanceToNextDeadline()
        let token = try #require(await first.value.value)
        #expect(await queued[1].value.value == token)
        #expect(await forced.value.value == token)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.steps.last == .move(.refreshing, .active, .refreshed(callers: 3)))
    }

    @Test("sign-out while callers are queued: they are answered like the machine's own waiters")
    func signOutAnswersQueuedCallers() async throws {
        let h = try SessionHarness()
        let (first, queued) = try await queuedCallers(h, count: 5)
        try await h.session.signOut()
        #expect(await first.value.error == .signOutInProgress)
        for caller in queued { #expect(await caller.value.error == .signOutInProgress) }
        #expect(h.session.queuedCallerCount == 0)
        #expect(await h.session.stage == .signedOut)
        // Nobody is handed a token after the session ended.
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
    }

    @Test("a refresh that fails answers queued callers with its error; the next call tries again")
    func failedRefreshAnswersQueuedCallers() async throws {
        let h = try SessionHarness { $0.refreshRetry.maximumAttempts = 1 }
        let (first, queued) = try await queuedCallers(h, count: 4, answer: .timeout)
        h.clock.advanceToNextDeadline()
        let error = try #require(await first.value.error)
        #expect(error == .provider(.transport(.timedOut)))
        for caller in queued { #expect(await caller.value.error == error) }
        #expect(h.session.queuedCallerCount == 0)
        #expect(await h.session.stage == .active)
        // Not sticky: the next caller starts a new refresh, which succeeds.
        let token = try await h.session.validAccessToken()
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 2)
    }
}

/// The gate's own bookkeeping, with plain values as waiters.
@Suite("Token gate")
struct TokenGateTests {
    private static let token = AccessToken(secret: Secret("at"), expiresAt: Date(timeIntervalSince1970: 3600))

    @Test func aNewGateSendsEveryRequestToTheMachine() {
        let gate = TokenGate<Int>()
        guard case .machine = gate.route else {
            Issue.record("not sent to the machine")
            return
        }
    }

    @Test func routesFollowTheMode() {
        var gate = TokenGate<Int>()
        let leftOver = gate.update(.fresh(Self.token, dueAt: Date(timeIntervalSince1970: 3540)))
        #expect(leftOver.isEmpty)
        guard case .fresh(let token, let dueAt) = gate.route else {
            Issue.record("not handed out")
            return
        }
        #expect(token == Self.token)
        #expect(dueAt == Date(timeIntervalSince1970: 3540))
        _ = gate.update(.joining)
        guard case .join = gate.route else {
            Issue.record("not sent to join")
            return
        }
        #expect(gate.isJoining)
        _ = gate.update(.closed)
        #expect(!gate.isJoining)
    }

    @Test func queuedCallersStayWhileJoiningAndAreTakenInArrivalOrder() {
        var gate = TokenGate<Int>()
        _ = gate.update(.joining)
        let ids = (1...3).map { WaiterID(raw: $0) }
        // Queued out of order, taken in arrival (id) order.
        let admissions = [gate.enqueue(ids[1], 1), gate.enqueue(ids[0], 0), gate.enqueue(ids[2], 2)]
        #expect(admissions == [false, false, false])
        let leftOver = gate.update(.joining)
        #expect(leftOver.isEmpty)
        #expect(gate.joiners.count == 3)
        let taken = gate.takeJoiners()
        #expect(taken.ordered == [0, 1, 2])
        #expect(taken.waitingIDs == ids)
        #expect(gate.joiners.isEmpty)
    }

    @Test func leavingJoiningHandsTheQueueBack() {
        var gate = TokenGate<Int>()
        _ = gate.update(.joining)
        let id = WaiterID(raw: 101)
        let admission = gate.enqueue(id, 7)
        #expect(!admission)
        let leftOver = gate.update(.closed)
        #expect(leftOver.ordered == [7])
        #expect(gate.joiners.isEmpty)
    }

    @Test func queuingOutsideJoiningAsksForAdmissionOnce() {
        var gate = TokenGate<Int>()
        var admissions: [Bool] = []
        for waiter in 1...2 {
            let id = WaiterID(raw: UInt64(waiter))
            admissions.append(gate.enqueue(id, waiter))
        }
        #expect(admissions == [true, false])
        let taken = gate.takeJoiners()
        #expect(taken.ordered == [1, 2])
        // Taken: the next caller queuing outside joining asks again.
        let id = WaiterID(raw: 103)
        let again = gate.enqueue(id, 3)
        #expect(again)
    }

    @Test func removeTakesOnlyThatCallerAndOnlyOnce() {
        var gate = TokenGate<Int>()
        _ = gate.update(.joining)
        let a = WaiterID(raw: 104)
        let b = WaiterID(raw: 105)
        _ = gate.enqueue(a, 1)
        _ = gate.enqueue(b, 2)
        let removed = [gate.remove(a), gate.remove(a)]
        #expect(removed == [1, nil])
        let taken = gate.takeJoiners()
        #expect(taken.ordered == [2])
        let late = gate.remove(b)
        #expect(late == nil)
    }
}
