import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Device sign-in (RFC 8628) through the session: the code request, the presenter's code, polls on
/// the injected clock at the planner's intervals, `slow_down`, denial, expiry, cancellation, and
/// the id_token policy for providers that issue none for this grant.
@Suite("Session device sign-in")
struct SessionDeviceSignInTests {
    typealias Step = SimulatedSessionEnvironment.Step

    private static let deviceGrant = ProviderClient.deviceCodeGrantType

    /// Starts `signInWithDeviceCode()` and returns once the code is shown and the first poll waits.
    private func startDeviceSignIn(_ h: SimulatedSessionEnvironment) async -> Task<SessionCallResult<SessionIdentity>, Never> {
        let session = h.session
        let task = Task { await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() } }
        await h.waitUntil("the code is shown") { h.presenter.presentedDeviceCodes.count == 1 }
        await h.clock.waitForSleepers(count: 1)
        return task
    }

    /// The simulated times (seconds) at which the token endpoint was polled for the device code.
    private func pollTimes(_ h: SimulatedSessionEnvironment) -> [Double] {
        h.provider.requestLog.filter { $0.grantType == Self.deviceGrant }.map { $0.receivedAt.timeIntervalSince(h.epoch) }
    }

    @Test("the person approves after a slow_down: polls at the planner's intervals on the injected clock, then active")
    func approvedAfterASlowDown() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 3, slowDownAtPolls: [2]))
        h.presenter.enqueue(.showDeviceCode)
        let signIn = await startDeviceSignIn(h)

        let prompt = try #require(h.presenter.presentedDeviceCodes.first)
        #expect(prompt.userCode == "SIMU-0001")
        #expect(prompt.verificationURI.absoluteString == "https://sim.1pass.test/device")
        #expect(prompt.verificationURIComplete?.absoluteString == "https://sim.1pass.test/device?user_code=SIMU-0001")
        #expect(prompt.expiresIn == 600)
        #expect(h.session.stage == .handoff)

        await h.advanceToNextSleeper()  // poll 1 at 5 s: authorization_pending
        await h.advanceToNextSleeper()  // poll 2 at 10 s: slow_down, the interval becomes 10 s
        await h.advanceToNextSleeper()  // poll 3 at 20 s: approved
        let identity = try #require(await signIn.value.value)
        #expect(identity.subject == "alice")
        #expect(identity.source == .idToken)
        #expect(pollTimes(h) == [5, 10, 20])
        #expect(
            h.steps == [
                .move(.signedOut, .handoff, .deviceSignInRequested),
                .move(.handoff, .handoff, .deviceCodeIssued(expiresInSeconds: 600)),
                .move(.handoff, .handoff, .devicePollDeferred(afterSeconds: 10, because: "slow_down")),
                .move(.handoff, .verifying, .deviceSignInApproved),
                .move(.verifying, .active, .verified(subject: "alice")),
            ])
        #expect(h.transitionTimes == [0, 0, 10, 20, 20])
        #expect(h.store.record.session?.subject == "alice")
        #expect(h.store.record.session?.refreshToken != nil)
        #expect(h.clock.sleeperCount == 0, "no poll timer is left behind")
        _ = try await h.session.validAccessToken()
    }

    @Test("the presenter's person enters the code at once: the first poll brings the tokens")
    func presenterEntersTheCode() async throws {
        let h = try SimulatedSessionEnvironment()
        h.presenter.enqueue(.enterDeviceCode(subject: "bob"))
        let signIn = await startDeviceSignIn(h)
        await h.advanceToNextSleeper()
        #expect(await signIn.value.value?.subject == "bob")
        #expect(pollTimes(h) == [5])
    }

    @Test(
        "the device request carries the configured scopes with the offline_access policy",
        arguments: [(AuthorizationRequestOptions.OfflineAccessPolicy.request, true), (.asConfigured, false)])
    func scopesFollowTheOfflinePolicy(policy: AuthorizationRequestOptions.OfflineAccessPolicy, refreshable: Bool) async throws {
        // This provider issues a refresh token only for a grant that includes offline_access.
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(refreshTokensRequireOfflineAccess: true)) {
            $0.authorizationOptions = try! AuthorizationRequestOptions(offlineAccess: policy)
        }
        h.presenter.enqueue(.enterDeviceCode(subject: "alice"))
        let signIn = await startDeviceSignIn(h)
        await h.advanceToNextSleeper()
        _ = try #require(await signIn.value.value)
        #expect((h.store.record.session?.refreshToken != nil) == refreshable)
    }

    @Test("access_denied ends the sign-in with a typed error")
    func denied() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 2, decision: .deny))
        h.presenter.enqueue(.showDeviceCode)
        let signIn = await startDeviceSignIn(h)
        await h.advanceToNextSleeper()
        await h.advanceToNextSleeper()
        let error = try #require(await signIn.value.error)
        #expect(error == .authorizationDenied("access_denied"))
        #expect(error.requiresSignIn)
        #expect(h.steps.last == .move(.handoff, .signedOut, .authorizationDenied(error: "access_denied")))
        #expect(h.store.record.session == nil)
        #expect(h.clock.sleeperCount == 0)
    }

    @Test("a code nobody approves expires: no poll is planned at or past expires_in")
    func expires() async throws {
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(deviceCodeLifetime: .seconds(12)))
        await h.startRecording()
        h.presenter.enqueue(.showDeviceCode)
        let signIn = await startDeviceSignIn(h)
        await h.advanceToNextSleeper()
        await h.advanceToNextSleeper()
        let error = try #require(await signIn.value.error)
        #expect(error == .deviceCodeExpired)
        #expect(error.identifier == "device_code_expired")
        #expect(error.category == .signInRequired)
        #expect(pollTimes(h) == [5, 10])
        #expect(h.steps.last == .move(.handoff, .signedOut, .deviceCodeExpired))
        #expect(h.clock.sleeperCount == 0)
    }

    @Test("cancelling the caller between polls ends the sign-in and stops polling")
    func cancelledBetweenPolls() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.presenter.enqueue(.showDeviceCode)
        let signIn = await startDeviceSignIn(h)
        signIn.cancel()
        #expect(await signIn.value.error == .cancelled)
        #expect(h.session.stage == .signedOut)
        await h.waitUntil("the poll timer is cancelled") { h.clock.sleeperCount == 0 }
        #expect(pollTimes(h).isEmpty)
        #expect(h.steps.last == .move(.handoff, .signedOut, .handoffCancelled))
    }

    @Test("cancelling the caller while a poll is in flight abandons the poll; its answer is never used")
    func cancelledDuringAPoll() async throws {
        let h = try SimulatedSessionEnvironment()
        h.presenter.enqueue(.enterDeviceCode(subject: "alice"))
        let signIn = await startDeviceSignIn(h)
        h.provider.script(.slow(.seconds(3)), on: .token)
        await h.advanceToNextSleeper()  // the poll is sent and the provider takes its time
        await h.clock.waitForSleepers(count: 1)
        signIn.cancel()
        #expect(await signIn.value.error == .cancelled)
        await h.waitUntil("the poll is abandoned") { h.clock.sleeperCount == 0 }
        #expect(h.session.stage == .signedOut)
        #expect(h.store.record.session == nil)
    }

    @Test("a presenter that cannot show a device code fails the sign-in with a typed error")
    func presenterWithoutDeviceCodes() async throws {
        struct BrowserOnlyPresenter: HandoffPresenter {
            func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? { throw .cancelled }
        }
        let h = try SimulatedSessionEnvironment()
        let session = Session(
            configuration: h.configuration, transport: h.provider, store: InMemoryCredentialStore(), presenter: BrowserOnlyPresenter(),
            clock: h.clock, wallClock: { [clock = h.clock] in clock.wallClockNow() })
        let events = Collected<SessionEvent>()
        session.addObserver { events.append($0) }
        await #expect(throws: SessionError.unsupported(.presentation("this presenter cannot show a device code"))) {
            try await session.signInWithDeviceCode()
        }
        #expect(session.stage == .signedOut)
        let last = try #require(events.values.last)
        guard case .transition(let transition) = last else {
            Issue.record("expected a transition, got \(last)")
            return
        }
        #expect(transition.reason == .presentationFailed(.unsupported("this presenter cannot show a device code")))
        await h.waitUntil("no timer left") { h.clock.sleeperCount == 0 }
    }

    @Test("a provider without a device authorization endpoint refuses at once, without moving")
    func noEndpoint() async throws {
        let h = try SimulatedSessionEnvironment { $0.provider.deviceAuthorizationEndpoint = nil }
        await h.startRecording()
        await #expect(throws: SessionError.unsupported(.deviceAuthorization)) {
            try await h.session.signInWithDeviceCode()
        }
        #expect(h.steps.isEmpty)
        #expect(h.provider.requestCount(for: .deviceAuthorization) == 0)
    }

    @Test("a refused code request ends the sign-in with the provider's error")
    func refusedCodeRequest() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.provider.script(.unauthorized, on: .deviceAuthorization)
        let error = try #require(
            await SessionCallResult { () async throws(SessionError) in try await h.session.signInWithDeviceCode() }.error)
        guard case .provider(let failure) = error.kind else {
            Issue.record("expected a provider error, got \(error)")
            return
        }
        #expect(failure.status == 401)
        #expect(h.presenter.presentedDeviceCodes.isEmpty)
        guard case .move(.handoff, .signedOut, let reason)? = h.steps.last, reason.code == .deviceSignInFailed else {
            Issue.record("unexpected last step \(String(describing: h.steps.last))")
            return
        }
    }

    @Test("sign-in and device sign-in exclude each other while one waits")
    func oneHandoffAtATime() async throws {
        let h = try SimulatedSessionEnvironment()
        h.presenter.enqueue(.showDeviceCode)
        let signIn = await startDeviceSignIn(h)
        await #expect(throws: SessionError.signInInProgress) { try await h.session.signIn() }
        await #expect(throws: SessionError.signInInProgress) { try await h.session.signInWithDeviceCode() }
        signIn.cancel()
        _ = await signIn.value
    }

    @Test("without an id_token and with the default policy, the sign-in fails typed and its refresh token is revoked")
    func missingIDTokenIsRefusedByDefault() async throws {
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(issuesIDTokenForDeviceGrant: false))
        await h.startRecording()
        h.presenter.enqueue(.enterDeviceCode(subject: "alice"))
        let signIn = await startDeviceSignIn(h)
        await h.advanceToNextSleeper()
        let error = try #require(await signIn.value.error)
        #expect(error == .verificationFailed(.missingIDToken))
        #expect(error.identifier == "verification_failed.missing_id_token")
        #expect(error.requiresSignIn)
        #expect(h.store.record.session == nil)
        await h.waitUntil("the unused refresh token is revoked") { h.deferredRevocations == 1 }
        #expect(h.provider.activeGrantCount == 0)
    }

    @Test("without an id_token and with the policy off, UserInfo names the person; a later id_token takes over")
    func missingIDTokenWithUserInfo() async throws {
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(issuesIDTokenForDeviceGrant: false)) {
            $0.requireIDTokenForDeviceSignIn = false
        }
        h.provider.register(SimulatedProviderUser(subject: "alice", profile: ProfileClaims(name: "Alice Liddell")))
        await h.startRecording()
        h.presenter.enqueue(.enterDeviceCode(subject: "alice"))
        let signIn = await startDeviceSignIn(h)
        await h.advanceToNextSleeper()
        let identity = try #require(await signIn.value.value)
        #expect(identity.subject == "alice")
        #expect(identity.source == .userInfo)
        #expect(identity.claims.profile.name == "Alice Liddell")
        #expect(h.provider.requestCount(for: .userInfo) == 1)
        #expect(h.store.record.session?.identityFromUserInfo == true)
        #expect(h.store.record.session?.idToken == nil)
        #expect(h.steps.contains(.move(.verifying, .active, .identifiedByUserInfo(subject: "alice"))))

        // The refresh brings a verified id_token for the same subject, which replaces the UserInfo word.
        try await h.session.refresh()
        let refreshed = try #require(h.session.identity)
        #expect(refreshed.subject == "alice")
        #expect(refreshed.source == .idToken)
    }
}
