import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// RP-initiated logout at sign-out: after the server-first revocation and the local wipe, the
/// presenter opens the provider's end-session page; the return is matched like a sign-in
/// callback; a cancellation or a timeout never undoes the wipe and is told as an event.
@Suite("Session provider logout")
struct SessionProviderLogoutTests {
    typealias Step = SimulatedSessionEnvironment.Step

    static let loggedOut = URL(string: "com.example.app://oauth/logged-out")!

    private func harness(
        provider: SimulatedProviderConfiguration = SimulatedProviderConfiguration(),
        configure: (inout SessionConfiguration) -> Void = { _ in }
    ) throws -> SimulatedSessionEnvironment {
        try SimulatedSessionEnvironment(provider: provider) {
            $0.endsProviderSessionAtSignOut = true
            $0.postLogoutRedirectURI = Self.loggedOut
            configure(&$0)
        }
    }

    /// Signs in as alice and starts a sign-out whose end-session page never answers; returns once
    /// the page is shown.
    private func pendingSignOut(_ h: SimulatedSessionEnvironment) async throws -> Task<SessionCallResult<Void>, Never> {
        try await h.signIn()
        await h.startRecording()
        h.presenter.enqueue(.neverAnswer)
        let session = h.session
        let task = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
        await h.presenter.waitForSuspendedPresentations(count: 1)
        return task
    }

    private static let signOutSteps: [Step] = [
        .move(.active, .revoking, .signOutRequested),
        .move(.revoking, .revoking, .revocationConfirmed),
    ]

    @Test("sign-out revokes, wipes, then ends the provider's session; the next sign-in must authenticate again")
    func endsTheProviderSession() async throws {
        let h = try harness()
        let stored = try await h.signIn()
        #expect(h.provider.hasBrowserSession(for: "alice"))
        await h.startRecording()
        h.presenter.enqueue(.endSession())
        try await h.session.signOut()

        #expect(
            h.steps
                == Self.signOutSteps + [
                    .move(.revoking, .signedOut, .providerSessionEnded), .event(.providerLogout(.completed)),
                ])
        #expect(h.store.record.isEmpty)
        #expect(!h.provider.isRefreshTokenActive(stored.refreshToken))
        #expect(!h.provider.hasBrowserSession(for: "alice"))
        let request = try #require(h.presenter.presentedRequests.last)
        #expect(request.kind == .endSession)
        #expect(request.redirectURI == Self.loggedOut)
        let record = try #require(h.provider.endSessionRecords.last)
        #expect(record.subject == "alice", "the id_token hint named the person")
        #expect(record.hadClientID)
        #expect(record.hadState)
        #expect(record.postLogoutRedirectURI == Self.loggedOut.absoluteString)
        // The revocation came before the page was opened.
        let revocation = try #require(h.provider.requestLog.last { $0.endpoint == .revocation })
        #expect(revocation.receivedAt <= record.receivedAt)

        try await h.signIn()
        #expect(h.provider.authorizationRecords.last?.authenticated == true, "no browser session was left to reuse")
    }

    @Test("the wipe comes first: while the page is open the store is empty and no token is handed out")
    func wipedBeforeThePageOpens() async throws {
        let h = try harness()
        let signOut = try await pendingSignOut(h)
        #expect(h.store.record.isEmpty)
        #expect(h.session.stage == .revoking)
        await #expect(throws: SessionError.signOutInProgress) { try await h.session.validAccessToken() }
        await #expect(throws: SessionError.signOutInProgress) { try await h.session.deleteAccount() }
        #expect(h.session.identity == nil)

        // The return arrives through handle(_:), app to app.
        let request = try #require(h.presenter.presentedRequests.last)
        let returned = try #require(try h.provider.endSession(request.url))
        #expect(h.session.handle(returned))
        #expect(await signOut.value.error == nil)
        #expect(h.session.stage == .signedOut)
        await h.waitUntil("the presentation is dismissed") { h.presenter.suspendedPresentationCount == 0 }
        #expect(h.clock.sleeperCount == 0)
    }

    @Test("a return with another state, or to another URI, is not consumed and leaves the logout waiting")
    func foreignReturnsAreNotConsumed() async throws {
        let h = try harness()
        let signOut = try await pendingSignOut(h)
        for foreign in [
            "com.example.app://oauth/logged-out?state=forged", "com.example.app://oauth/logged-out",
            "com.example.app://oauth/elsewhere?state=x", "com.example.app://oauth/logged-out?state=a&state=b",
        ] {
            #expect(h.session.handle(try #require(URL(string: foreign))) == false, "\(foreign)")
        }
        #expect(h.session.stage == .revoking)
        #expect(h.steps == Self.signOutSteps)

        let request = try #require(h.presenter.presentedRequests.last)
        let returned = try #require(try h.provider.endSession(request.url))
        #expect(h.session.handle(returned))
        _ = await signOut.value
        // The same return again belongs to no logout.
        #expect(h.session.handle(returned) == false)
    }

    @Test("the presenter delivers the return itself (a browser session)")
    func returnedByThePresenter() async throws {
        let h = try harness()
        try await h.signIn()
        h.presenter.enqueue(.endSession(delivery: .returned))
        try await h.session.signOut()
        #expect(h.provider.endSessionRecords.count == 1)
        #expect(h.session.stage == .signedOut)
    }

    @Test("app-to-app: the presenter returns nothing and the return comes through handle(_:)")
    func appToApp() async throws {
        let h = try harness()
        try await h.signIn()
        await h.startRecording()
        let session = h.session
        let handled = Collected<Bool>()
        h.presenter.onAppToAppOpen { url in handled.append(session.handle(url)) }
        h.presenter.enqueue(.endSession(delivery: .appToApp))
        try await session.signOut()
        #expect(handled.values == [true])
        #expect(h.steps.last == .event(.providerLogout(.completed)))
    }

    @Test("the person closes the page: the sign-out is complete anyway, and the app is told")
    func cancelled() async throws {
        let h = try harness()
        try await h.signIn()
        await h.startRecording()
        h.presenter.enqueue(.cancel)
        try await h.session.signOut()
        #expect(
            h.steps
                == Self.signOutSteps + [
                    .move(.revoking, .signedOut, .providerSessionNotEnded(.cancelled)), .event(.providerLogout(.cancelled)),
                ])
        #expect(h.store.record.isEmpty)
        #expect(h.provider.hasBrowserSession(for: "alice"), "the provider was never visited")
    }

    @Test("nothing comes back: signOut() returns after the logout timeout, not a sign-in's, and says the provider session may remain")
    func timesOut() async throws {
        let h = try harness()
        #expect(h.configuration.handoffTimeout == .seconds(300))
        #expect(h.configuration.providerLogoutTimeout == .seconds(60))
        let signOut = try await pendingSignOut(h)
        #expect(await h.advanceToNextSleeper() == .seconds(60), "the wait for the provider is bounded once revoked and wiped")
        #expect(await signOut.value.error == nil)
        #expect(h.elapsed == 60)
        #expect(
            h.steps.suffix(2) == [.move(.revoking, .signedOut, .providerSessionNotEnded(.timedOut)), .event(.providerLogout(.timedOut))])
        let reason = try #require(
            h.events.compactMap { event -> TransitionReason? in
                guard case .transition(let transition) = event, transition.to == .signedOut else { return nil }
                return transition.reason
            }.last)
        #expect(reason.providerLogout?.providerSessionMayRemain == true)
        #expect("\(reason)".contains("the provider's browser session may remain"))
        #expect(h.store.record.isEmpty)
        await h.waitUntil("the presentation is dismissed") { h.presenter.suspendedPresentationCount == 0 }
    }

    @Test("the logout timeout is the app's to set")
    func configuredLogoutTimeout() async throws {
        let h = try harness { $0.providerLogoutTimeout = .seconds(20) }
        let signOut = try await pendingSignOut(h)
        #expect(await h.advanceToNextSleeper() == .seconds(20))
        #expect(await signOut.value.error == nil)
        #expect(h.steps.last == .event(.providerLogout(.timedOut)))
    }

    @Test("only a completed logout says the provider's browser session is gone")
    func whetherTheProviderSessionMayRemain() {
        #expect(!ProviderLogoutOutcome.completed.providerSessionMayRemain)
        for outcome in [
            ProviderLogoutOutcome.cancelled, .timedOut, .presentationFailed("no browser"), .superseded, .unavailable("no endpoint"),
        ] {
            #expect(outcome.providerSessionMayRemain, "\(outcome)")
        }
    }

    @Test("a new sign-in supersedes a logout still waiting for the provider")
    func supersededByASignIn() async throws {
        let h = try harness()
        let signOut = try await pendingSignOut(h)
        h.presenter.enqueue(.approve(subject: "bob"))
        let identity = try await h.session.signIn()
        #expect(identity.subject == "bob")
        #expect(await signOut.value.error == nil)
        #expect(h.steps.contains(.event(.providerLogout(.superseded))))
        #expect(h.steps.contains(.move(.revoking, .signedOut, .providerSessionNotEnded(.superseded))))
        #expect(h.store.record.session?.subject == "bob")
    }

    @Test("asked for but not possible: signed out at once, and the app is told why")
    func unavailable() async throws {
        let h = try harness { $0.postLogoutRedirectURI = nil }
        try await h.signIn()
        await h.startRecording()
        let presented = h.presenter.presentedRequests.count
        try await h.session.signOut()
        #expect(
            h.steps == [
                .move(.active, .revoking, .signOutRequested), .move(.revoking, .signedOut, .revocationConfirmed),
                .event(.providerLogout(.unavailable("no post-logout redirect URI is configured"))),
            ])
        #expect(h.presenter.presentedRequests.count == presented)

        let noEndpoint = try harness { $0.provider.endSessionEndpoint = nil }
        try await noEndpoint.signIn()
        await noEndpoint.startRecording()
        try await noEndpoint.session.signOut()
        #expect(noEndpoint.steps.last == .event(.providerLogout(.unavailable("the provider advertises no end-session endpoint"))))
    }

    @Test("without the switch, sign-out leaves the provider's session alone")
    func offByDefault() async throws {
        let h = try SimulatedSessionEnvironment { $0.postLogoutRedirectURI = Self.loggedOut }
        try await h.signIn()
        await h.startRecording()
        try await h.session.signOut()
        #expect(h.steps == [.move(.active, .revoking, .signOutRequested), .move(.revoking, .signedOut, .revocationConfirmed)])
        #expect(h.provider.endSessionRecords.isEmpty)
        #expect(h.presenter.presentedRequests.count == 1)
    }

    @Test("a provider that cannot revoke still gets its session ended after the local wipe")
    func afterALocalOnlySignOut() async throws {
        let h = try harness { $0.provider.revocationEndpoint = nil }
        try await h.signIn()
        await h.startRecording()
        h.presenter.enqueue(.endSession())
        try await h.session.signOut()
        #expect(
            h.steps == [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .revoking, .signedOutLocallyOnly(.unsupported(.revocation))),
                .move(.revoking, .signedOut, .providerSessionEnded), .event(.providerLogout(.completed)),
            ])
        #expect(h.store.record.isEmpty)
    }

    @Test("a loopback presenter picks its own post-logout redirect URI; the return is matched there only")
    func loopbackPresenter() async throws {
        /// Renders the page for its own loopback listener, plays the provider's page, returns the redirect.
        struct LoopbackPresenter: HandoffPresenter {
            let provider: SimulatedProvider<TestClock>
            let inner: ScriptedPresenter
            static let listener = URL(string: "http://127.0.0.1:49152/logged-out")!

            func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
                guard request.kind == .endSession else { return try await inner.present(request) }
                let url = request.authorizationURL(redirectingTo: Self.listener)
                guard url != request.url else { throw .presentationFailed("the request was not rendered for the listener") }
                do {
                    return try provider.endSession(url)
                } catch {
                    throw .presentationFailed("\(error)")
                }
            }
        }
        var providerConfiguration = SimulatedProviderConfiguration()
        providerConfiguration.postLogoutRedirectURIs.append(LoopbackPresenter.listener)
        let h = try SimulatedSessionEnvironment(provider: providerConfiguration)
        let session = Session(
            configuration: {
                var configuration = h.configuration
                configuration.endsProviderSessionAtSignOut = true
                configuration.postLogoutRedirectURI = Self.loggedOut
                return configuration
            }(),
            transport: h.provider, store: InMemoryCredentialStore(), presenter: LoopbackPresenter(provider: h.provider, inner: h.presenter),
            clock: h.clock, wallClock: { [clock = h.clock] in clock.wallClockNow() })
        let outcomes = Collected<ProviderLogoutOutcome>()
        session.addObserver { event in
            if case .providerLogout(let outcome) = event { outcomes.append(outcome) }
        }
        h.presenter.enqueue(.approve(subject: "alice"))
        try await session.signIn()
        try await session.signOut()
        #expect(outcomes.values == [.completed])
        #expect(h.provider.endSessionRecords.last?.postLogoutRedirectURI == LoopbackPresenter.listener.absoluteString)
    }

    @Test("a presenter that returns a URL that is not the return fails the logout, not the sign-out")
    func unrelatedReturn() async throws {
        let h = try harness()
        try await h.signIn()
        await h.startRecording()
        h.presenter.enqueue(.answer(URL(string: "com.example.app://oauth/logged-out?state=forged")!))
        try await h.session.signOut()
        #expect(
            h.steps.last == .event(.providerLogout(.presentationFailed("the return does not match the post-logout redirect URI"))))
        #expect(h.store.record.isEmpty)
    }
}
