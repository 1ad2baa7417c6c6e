import Foundation
import SessionKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Scenarios {
    /// Sign-in through the shipped ``LoopbackPresenter``: the provider accepts the per-attempt
    /// loopback redirect URI on any port (RFC 8252 §7.3), the browser's redirect reaches the
    /// listener, the code is exchanged with that URI, and the port is closed afterwards.
    static func signInThroughTheLoopbackPresenter(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(
            environment, user: "loopback", redirectURI: URL(string: "http://127.0.0.1/callback")!)
        defer { harness.cleanUp() }
        let browser = ScriptedLoopbackBrowser(environment: environment, user: harness.user, transport: harness.providerTransport)
        let session = harness.makeSession(presenter: LoopbackPresenter(opener: browser.opener))

        let identity = try await session.signIn()

        #expect(identity.issuer == environment.issuer)
        #expect(session.stage == .active)
        let visit = try #require(browser.visits.first)
        #expect(browser.visits.count == 1)
        let redirect = try #require(visit.requestedRedirect)
        let port = try #require(redirect.port)
        #expect(redirect.absoluteString == "http://127.0.0.1:\(port)/callback")
        #expect(visit.redirectedTo == "http://127.0.0.1:\(port)/callback", "the provider redirected to this attempt's port")
        #expect(visit.pageStatus == 200)
        #expect(visit.page.contains("You can close this window."))
        let token = try await session.validAccessToken()
        #expect(try await harness.userInfoStatus(token.secret) == 200)
        #expect(try await harness.storedSession()?.subject == identity.subject)
        #expect(!isListening(UInt16(port)), "the listener is gone once the handoff has ended")

        // A second attempt binds a listener of its own and closes it again.
        try await session.signOut()
        try await session.signIn()
        let second = try #require(browser.visits.last?.requestedRedirect?.port)
        #expect(browser.visits.count == 2)
        #expect(!isListening(UInt16(second)))
        try await session.signOut()
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func isListening(_ port: UInt16) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

extension Scenarios {
    /// Sign-out through the shipped ``LoopbackPresenter`` (RP-initiated logout): the end-session
    /// URL carries the listener's `post_logout_redirect_uri`, the provider comes back with only the
    /// `state`, the listener takes it, and the provider's browser session is gone: its cookie no
    /// longer signs in.
    static func signOutThroughTheLoopbackPresenterEndsTheProviderSession(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(
            environment, user: "loopback-logout", redirectURI: URL(string: "http://127.0.0.1/callback")!)
        defer { harness.cleanUp() }
        let browser = CookieLoopbackBrowser(
            browser: ScriptedBrowser(environment: environment, user: harness.user, transport: harness.providerTransport),
            transport: harness.providerTransport)
        var configuration = harness.configuration
        configuration.endsProviderSessionAtSignOut = true
        configuration.postLogoutRedirectURI = URL(string: "http://127.0.0.1/logged-out")!
        let wallClock = harness.wallClock
        let session = Session(
            configuration: configuration, transport: harness.transport, store: harness.store,
            presenter: LoopbackPresenter(opener: browser.opener), clock: harness.clock, wallClock: { wallClock.now() })
        let outcomes = SimulatedSessionEnvironmentCollected<ProviderLogoutOutcome>()
        session.addObserver { event in
            if case .providerLogout(let outcome) = event { outcomes.append(outcome) }
        }
        try await session.signIn()
        // Single sign-on is real: another authorization request passes on the cookie alone.
        let before = try await session.signInProbe(harness: harness, browser: browser.browser)
        #expect(before.location?.path == "/callback", "the provider session signs in without asking (got \(before))")

        try await session.signOut()

        #expect(outcomes.values == [.completed])
        let visit = try #require(browser.visits.last)
        #expect(visit.endSession)
        let port = try #require(URL(string: visit.redirectedTo)?.port)
        #expect(visit.redirectedTo == "http://127.0.0.1:\(port)/logged-out", "the provider came back to this attempt's listener")
        #expect(visit.returnedFields == ["state"], "the return carries only the state")
        #expect(visit.pageStatus == 200)
        #expect(visit.page.contains("You are signed out."))
        #expect(!isListening(UInt16(port)), "the listener is gone once the return arrived")
        #expect(try await harness.storedSession() == nil)
        let after = try await session.signInProbe(harness: harness, browser: browser.browser)
        #expect(after.isLoginPage, "after RP-initiated logout the provider asks for credentials again (got \(after))")
    }
}
