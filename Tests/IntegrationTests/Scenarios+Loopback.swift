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
    private static func isListening(_ port: UInt16) -> Bool {
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
