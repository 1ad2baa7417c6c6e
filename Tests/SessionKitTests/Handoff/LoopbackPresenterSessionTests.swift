import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The loopback presenter under a real `Session`: the session's handoff timeout ends the listener.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackPresenterSessionTests {
    typealias Fixture = LoopbackFixture

    @Test func aScriptedBrowserSignsInThroughTheListener() async throws {
        let clock = TestClock()
        let configuration = SimulatedProviderConfiguration(redirectURI: Fixture.configuredRedirect)
        let provider = try SimulatedProvider(
            configuration: configuration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 1))
        // The browser: the provider approves and redirects; the redirect is followed over real HTTP.
        let browser = BrowserOpener { url throws(HandoffError) in
            let callback: URL
            do {
                callback = try provider.authorize(url, subject: "carol", decision: .approve)
            } catch {
                throw .presentationFailed("the provider refused")
            }
            guard let port = callback.port.map(UInt16.init) else { throw .presentationFailed("no port") }
            let target = callback.path + "?" + (callback.query ?? "")
            Task { _ = try await RawLoopbackClient.exchange(Fixture.head(target, host: "127.0.0.1:\(port)"), port: port) }
        }
        let session = Session(
            configuration: SessionConfiguration(
                provider: try .onePass(
                    clientID: configuration.clientID, redirectURI: configuration.redirectURI, issuer: configuration.issuer)),
            transport: provider, store: InMemoryCredentialStore(), presenter: LoopbackPresenter(opener: browser), clock: clock,
            wallClock: { clock.wallClockNow() })

        let identity = try await session.signIn()

        #expect(identity.subject == "carol")
        #expect(session.stage == .active)
        #expect(provider.requestCount(grantType: "authorization_code") == 1)
    }

    @Test func aDeviceSignInShowsTheCodeInTheTerminalAndSignsInOnceTheProviderApproves() async throws {
        let clock = TestClock()
        let provider = try SimulatedProvider(
            configuration: SimulatedProviderConfiguration(redirectURI: Fixture.configuredRedirect), clock: clock,
            now: { clock.wallClockNow() }, signingKeys: try SimulatedProviderKeys.shared(count: 1))
        provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "dave", decidedAtPoll: 2))
        let (written, output) = AsyncStream.makeStream(of: String.self)
        let session = Session(
            configuration: SessionConfiguration(provider: try provider.providerConfiguration()), transport: provider,
            store: InMemoryCredentialStore(), presenter: LoopbackPresenter(deviceCodeOutput: { output.yield($0) }), clock: clock,
            wallClock: { clock.wallClockNow() })

        let signIn = Task { try await session.signInWithDeviceCode() }
        let text = try #require(await written.first { _ in true })
        #expect(text.contains("\n    SIMU-0001\n"))
        #expect(text.contains(try provider.providerConfiguration().issuer))
        await clock.waitForSleepers()
        clock.advanceToNextDeadline()  // poll 1: authorization_pending
        await clock.waitForSleepers()
        clock.advanceToNextDeadline()  // poll 2: approved

        #expect(try await signIn.value.subject == "dave")
        #expect(session.stage == .active)
        #expect(provider.requestCount(grantType: "urn:ietf:params:oauth:grant-type:device_code") == 2)
    }

    /// Sign-out through the listener, with `http://127.0.0.1/logged-out` registered as the README
    /// says: a provider that accepts any loopback port (RFC 8252 §7.3, as django-oauth-toolkit
    /// does for post-logout URIs too) sends the browser back to this attempt's port; one that
    /// matches ports exactly refuses the request, the browser stays on its error page, and
    /// `signOut()` returns after the logout timeout, not a sign-in's five minutes.
    @Test(arguments: [false, true])
    func signOutThroughTheListener(providerMatchesPortsExactly exact: Bool) async throws {
        let env = try SimulatedSessionEnvironment(
            provider: SimulatedProviderConfiguration(
                redirectURI: Fixture.configuredRedirect, postLogoutRedirectURIs: [URL(string: "http://127.0.0.1/logged-out")!],
                matchesLoopbackPortsExactly: exact)
        ) {
            $0.endsProviderSessionAtSignOut = true
            $0.postLogoutRedirectURI = URL(string: "http://127.0.0.1/logged-out")!
        }
        // Signed in before (the scripted presenter uses the registered URI as it is).
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        await env.session.shutdown()
        let refused = Collector<URL>()
        let browser = BrowserOpener { url throws(HandoffError) in
            // The provider's end-session page sends the browser back only to a URI it accepts.
            guard let back = try? env.provider.endSession(url), let port = back.port.map(UInt16.init) else {
                refused.append(url)
                return
            }
            let target = back.path + "?" + (back.query ?? "")
            Task { _ = try await RawLoopbackClient.exchange(Fixture.head(target, host: "127.0.0.1:\(port)"), port: port) }
        }
        let session = Session(
            configuration: env.configuration, transport: env.provider, store: env.store, presenter: LoopbackPresenter(opener: browser),
            clock: env.clock, wallClock: { env.clock.wallClockNow() })
        let outcomes = Collector<ProviderLogoutOutcome>()
        session.addObserver { event in
            if case .providerLogout(let outcome) = event { outcomes.append(outcome) }
        }
        #expect(try await session.restore() == .active)
        let start = env.clock.now
        let signOut = Task { try await session.signOut() }

        if exact {
            await env.clock.waitForSleepers()
            #expect(env.clock.nextDeadline == start.advanced(by: .seconds(60)), "the logout timeout, not the handoff timeout")
            env.clock.advance(by: env.configuration.providerLogoutTimeout)
        }
        try await signOut.value
        // The timeout answers the caller and cancels the presentation; its task closes the
        // listener as it ends, on the listener's thread. `shutdown()` returns once every task the
        // session started has ended, so the port is then closed for certain.
        await session.shutdown()

        #expect(session.stage == .signedOut)
        #expect(env.store.record.isEmpty)
        #expect(env.provider.activeGrantCount == 0, "revoked before the page was opened")
        if exact {
            #expect(outcomes.values == [.timedOut])
            #expect(outcomes.values.first?.providerSessionMayRemain == true)
            #expect(env.clock.now == start.advanced(by: .seconds(60)))
            #expect(env.provider.hasBrowserSession(for: "alice"), "the provider's browser session remains")
            let opened = try #require(refused.values.first)
            let returnURI = try #require(
                Fixture.fields(of: opened).first { $0.0 == "post_logout_redirect_uri" }.flatMap { URL(string: $0.1) })
            #expect(RawLoopbackClient.isRefused(try #require(returnURI.port.map(UInt16.init))), "the listener closed with its task")
        } else {
            #expect(outcomes.values == [.completed])
            #expect(refused.values.isEmpty)
            #expect(env.clock.now == start, "no time passed: the browser came back")
            #expect(!env.provider.hasBrowserSession(for: "alice"))
        }
    }

    @Test func theHandoffTimeoutClosesTheListenerAndCutsOffASlowLoris() async throws {
        let clock = TestClock()
        let configuration = SimulatedProviderConfiguration(redirectURI: Fixture.configuredRedirect)
        let provider = try SimulatedProvider(
            configuration: configuration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 1))
        let sessionConfiguration = SessionConfiguration(
            provider: try .onePass(clientID: configuration.clientID, redirectURI: configuration.redirectURI, issuer: configuration.issuer))
        let (opener, opened) = Fixture.browser()
        let session = Session(
            configuration: sessionConfiguration, transport: provider, store: InMemoryCredentialStore(),
            presenter: LoopbackPresenter(opener: opener), clock: clock, wallClock: { clock.wallClockNow() })
        let signIn = Task { () -> SessionError? in
            do throws(SessionError) {
                try await session.signIn()
                return nil
            } catch {
                return error
            }
        }
        let port = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:))?.port.map(UInt16.init))
        let loris = try RawLoopbackClient.connect(to: port)
        defer { loris.close() }
        loris.send("GET /callback?code=")

        await clock.waitForSleepers()
        clock.advance(by: sessionConfiguration.handoffTimeout)

        #expect(await signIn.value == .handoffTimedOut)
        #expect(await loris.readToEnd().isEmpty, "the slow client is cut off when the handoff ends")
        #expect(RawLoopbackClient.isRefused(port))
        #expect(session.stage == .signedOut)
    }
}
