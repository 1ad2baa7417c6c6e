import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Sign-in through the presenter seam and `handle(_:)`: deliveries, refusals, misuse and the
/// pending-revocation escape hatch.
@Suite("Session sign-in")
struct SessionSignInTests {
    typealias Step = SimulatedSessionEnvironment.Step

    /// Starts a sign-in whose presenter never answers and returns once the handoff waits.
    private func pendingSignIn(_ h: SimulatedSessionEnvironment) async -> Task<SessionCallResult<SessionIdentity>, Never> {
        await h.startRecording()
        h.presenter.enqueue(.neverAnswer)
        let session = h.session
        let task = Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn() } }
        await h.presenter.waitForSuspendedPresentations(count: 1)
        return task
    }

    /// `url` with the query item `name` replaced by `value`, or removed when `value` is nil.
    private func rewriting(_ url: URL, _ name: String, to value: String?) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        var items = components.queryItems ?? []
        let index = try #require(items.firstIndex { $0.name == name })
        if let value { items[index].value = value } else { items.remove(at: index) }
        components.queryItems = items
        return try #require(components.url)
    }

    private static let requested = Step.move(.signedOut, .handoff, .signInRequested)

    @Test("app-to-app delivery: the callback arrives through handle(_:) while the presenter returns nothing")
    func appToApp() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let session = h.session
        let handled = Collected<Bool>()
        h.presenter.onAppToAppOpen { url in handled.append(session.handle(url)) }
        h.presenter.enqueue(.approve(subject: "alice", delivery: .appToApp))

        let identity = try await session.signIn()
        #expect(identity.subject == "alice")
        #expect(handled.values == [true])
        #expect(h.steps == Step.signIn())
        #expect(h.store.record.session?.subject == "alice")
        #expect(h.provider.requestCount(grantType: "authorization_code") == 1)
        // The same callback again belongs to no handoff.
        let replay = try h.authorizePending()
        // Callback URLs carry a code: keep them out of expectations, which print their operands.
        let replayConsumed = session.handle(replay)
        #expect(!replayConsumed)
        #expect(h.steps == Step.signIn() + [.event(.callbackRefused(.noHandoffWaiting))])
    }

    @Test("an unrelated URL returns false and leaves the handoff waiting for the real callback")
    func unrelatedURL() async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await pendingSignIn(h)
        let session = h.session
        for unrelated in [
            "com.example.app://oauth/other?code=abc&state=xyz",
            "com.example.other://oauth/callback?code=abc&state=xyz",
            "https://sim.1pass.test/oauth/callback?code=abc&state=xyz",
            "com.example.app://elsewhere/oauth/callback?code=abc",
        ] {
            #expect(session.handle(try #require(URL(string: unrelated))) == false, "\(unrelated)")
        }
        #expect(session.stage == .handoff)
        #expect(h.steps == [Self.requested])
        #expect(h.presenter.suspendedPresentationCount == 1)

        let consumed = session.handle(try h.authorizePending())
        #expect(consumed)
        #expect(await signIn.value.value?.subject == "alice")
        #expect(h.steps == Step.signIn())
        await h.waitUntil("presentation dismissed") { h.presenter.suspendedPresentationCount == 0 }
        await h.waitUntil("handoff timer cancelled") { h.clock.sleeperCount == 0 }
    }

    @Test("a callback with another state is not consumed: whoever can open the redirect URL cannot end the sign-in")
    func foreignStateNotConsumed() async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await pendingSignIn(h)
        let genuine = try h.authorizePending()
        let forged = try rewriting(genuine, "state", to: "forged-state")
        let withoutState = try rewriting(genuine, "state", to: nil)

        let forgedConsumed = h.session.handle(forged)
        let statelessConsumed = h.session.handle(withoutState)
        #expect(!forgedConsumed)
        #expect(!statelessConsumed)
        #expect(h.session.stage == .handoff)
        // Refused with a reason the app can tell from "not mine"; the reason names no value.
        #expect(h.steps == [Self.requested, .event(.callbackRefused(.stateMismatch)), .event(.callbackRefused(.stateMismatch))])
        #expect(h.provider.tokenRequestCount == 0)

        let consumed = h.session.handle(genuine)
        #expect(consumed)
        #expect(await signIn.value.value?.subject == "alice")
        #expect(
            h.steps == [Self.requested, .event(.callbackRefused(.stateMismatch)), .event(.callbackRefused(.stateMismatch))]
                + Step.signIn().dropFirst())
        #expect(h.provider.requestCount(grantType: "authorization_code") == 1)
    }

    @Test(
        "a callback with this handoff's state but a bad issuer or no code is consumed and rejected; nothing is exchanged",
        arguments: [
            ("iss", "https://evil.example" as String?, CallbackRefusal.issuerMismatch),
            ("code", nil, .missingCode),
        ])
    func callbackRejected(name: String, value: String?, why: CallbackRefusal) async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await pendingSignIn(h)
        let forged = try rewriting(try h.authorizePending(), name, to: value)

        let consumed = h.session.handle(forged)
        #expect(consumed)
        #expect(await signIn.value.error == .callbackRejected(why))
        #expect(h.steps == [Self.requested, .move(.handoff, .signedOut, .callbackRejected(why))])
        #expect(h.provider.tokenRequestCount == 0)
        #expect(h.store.record.isEmpty)
        await h.waitUntil("presentation dismissed") { h.presenter.suspendedPresentationCount == 0 }
    }

    @Test(
        "a callback with a repeated parameter is not consumed (RFC 6749 §3.1), the refusal is told, and the genuine one still signs in",
        arguments: ["state", "code"])
    func repeatedParameterIsRefused(name: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await pendingSignIn(h)
        let genuine = try h.authorizePending()
        for forged in [
            try #require(URL(string: genuine.absoluteString + "&\(name)=forged")),
            try #require(URL(string: genuine.absoluteString.replacingOccurrences(of: "?", with: "?\(name)=forged&"))),
        ] {
            let consumed = h.session.handle(forged)
            #expect(!consumed)
            #expect(h.session.stage == .handoff)
        }
        #expect(h.provider.tokenRequestCount == 0)
        #expect(
            h.steps.suffix(2) == [
                .event(.callbackRefused(.repeatedParameter(name: name))), .event(.callbackRefused(.repeatedParameter(name: name))),
            ])
        let consumed = h.session.handle(genuine)
        #expect(consumed)
        #expect(await signIn.value.value?.subject == "alice")
    }

    @Test("the person denies: access_denied ends the handoff", arguments: [ScriptedPresenter.Delivery.returned, .appToApp])
    func denied(delivery: ScriptedPresenter.Delivery) async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let session = h.session
        h.presenter.onAppToAppOpen { url in _ = session.handle(url) }
        h.presenter.enqueue(.deny(delivery: delivery))
        await #expect(throws: SessionError.authorizationDenied("access_denied")) { try await session.signIn() }
        #expect(h.steps == [Self.requested, .move(.handoff, .signedOut, .authorizationDenied(error: "access_denied"))])
        #expect(h.provider.tokenRequestCount == 0)
        #expect(h.store.record.isEmpty)
    }

    @Test("the person closes the page: the handoff is cancelled")
    func presenterCancelled() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.presenter.enqueue(.cancel)
        await #expect(throws: SessionError.cancelled) { try await h.session.signIn() }
        #expect(h.steps == [Self.requested, .move(.handoff, .signedOut, .handoffCancelled)])
        await h.waitUntil("handoff timer cancelled") { h.clock.sleeperCount == 0 }
        #expect(h.provider.tokenRequestCount == 0)
    }

    @Test("the page cannot be shown: the sign-in fails with the presenter's reason")
    func presenterFailed() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.presenter.enqueue(.fail("no browser available"))
        await #expect(throws: SessionError.presentationFailed(.presentationFailed("no browser available"))) { try await h.session.signIn() }
        #expect(h.steps == [Self.requested, .move(.handoff, .signedOut, .presentationFailed(.presentationFailed("no browser available")))])
    }

    @Test("cancelling the task that called signIn() ends the handoff and dismisses the presenter")
    func callerCancelled() async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await pendingSignIn(h)
        signIn.cancel()
        #expect(await signIn.value.error == .cancelled)
        await h.waitUntil("signed out") { h.session.stage == .signedOut }
        #expect(h.steps == [Self.requested, .move(.handoff, .signedOut, .handoffCancelled)])
        await h.waitUntil("presentation dismissed") { h.presenter.suspendedPresentationCount == 0 }
        await h.waitUntil("handoff timer cancelled") { h.clock.sleeperCount == 0 }
    }

    @Test("signing out during the handoff cancels it")
    func signOutDuringHandoff() async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await pendingSignIn(h)
        try await h.session.signOut()
        #expect(await signIn.value.error == .cancelled)
        #expect(h.steps == [Self.requested, .move(.handoff, .signedOut, .handoffCancelled)])
        #expect(h.provider.requestLog.isEmpty)
    }

    @Test("a second signIn() while one is pending throws signInInProgress and leaves the first alone")
    func secondSignInRejected() async throws {
        let h = try SimulatedSessionEnvironment()
        let first = await pendingSignIn(h)
        await #expect(throws: SessionError.signInInProgress) { try await h.session.signIn() }
        #expect(h.presenter.presentedRequests.count == 1)
        #expect(h.session.stage == .handoff)
        #expect(h.steps == [Self.requested])

        let consumed = h.session.handle(try h.authorizePending())
        #expect(consumed)
        #expect(await first.value.value?.subject == "alice")
        await #expect(throws: SessionError.alreadySignedIn) { try await h.session.signIn() }
        #expect(h.steps == Step.signIn())
    }

    @Test("a new sign-in during a pending revocation: the old token is revoked in the background, never reused")
    func signInDuringPendingRevocation() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let alice = try await h.signIn(as: "alice")
        h.provider.script(.serverError(status: 503), on: .revocation, times: 2)
        let session = h.session
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
        await h.clock.waitForSleepers(count: 1)
        #expect(h.store.record.pendingOperation == .signOut)

        let bob = try await h.signIn(as: "bob")
        // The sign-out's caller is released; its revocation continues in the background.
        #expect(await signOut.value.error == nil)
        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == "503 server_error")
        #expect(
            h.steps == Step.signIn("alice") + [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .revoking, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.revoking, .signedOut, .revocationDeferred),
            ] + Step.signIn("bob"))
        #expect(bob.subject == "bob")
        #expect(bob.refreshToken != alice.refreshToken)
        #expect(h.store.record.pendingOperation == nil)
        #expect(h.store.record.pendingRevocations == [alice.refreshToken])
        #expect(try await session.validAccessToken().secret == bob.accessToken)

        // The background revoker meets the second 503, backs off, then succeeds.
        await h.advanceToNextSleeper()
        await h.waitUntil("alice's token revoked") { h.deferredRevocations == 1 }
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(!h.provider.isRefreshTokenActive(alice.refreshToken))
        #expect(h.provider.isRefreshTokenActive(bob.refreshToken))
        #expect(h.store.record.session == bob)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 0)
        #expect(h.steps.last == .event(.deferredRevocationCompleted))
        #expect(session.identity?.subject == "bob")
    }

    @Test("a new sign-in while the old revocation is in flight: its late answer must not wipe the new session")
    func signInDuringInFlightRevocation() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let alice = try await h.signIn(as: "alice")
        h.provider.script(.slow(.seconds(5)), on: .revocation)
        let session = h.session
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
        await h.clock.waitForSleepers(count: 1)

        let bob = try await h.signIn(as: "bob")
        #expect(await signOut.value.error == nil)
        await h.waitUntil("alice's token revoked in the background") { h.deferredRevocations == 1 }
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty && !h.store.isLeaseHeld }
        #expect(h.store.record.session == bob)

        // The first revocation's answer arrives now, after bob's session was stored.
        let leases = h.store.leaseCount
        h.clock.advanceToNextDeadline()
        await h.waitUntil("the late revocation finished with the store") { h.store.leaseCount > leases && !h.store.isLeaseHeld }
        #expect(!h.provider.isRefreshTokenActive(alice.refreshToken))
        #expect(session.stage == .active)
        #expect(h.store.record.session == bob)
        #expect(h.store.record.pendingOperation == nil)
        // The new session goes on: its next refresh finds its stored token.
        let refreshed = await SessionCallResult { () async throws(SessionError) in try await session.refresh() }
        #expect(refreshed.value != nil, "refresh() gave \(refreshed)")
        #expect(session.stage == .active)
        #expect(h.store.record.session?.subject == "bob")
        #expect(h.steps.suffix(2) == [.move(.active, .refreshing, .refreshRequested), .move(.refreshing, .active, .refreshed(callers: 1))])
    }
}
