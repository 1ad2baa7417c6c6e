import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// A presenter that picks its own redirect URI per attempt (a loopback listener, RFC 8252 §7.3):
/// the session exchanges the code with that URI and accepts the callback only there.
@Suite("Session loopback redirect")
struct SessionLoopbackRedirectTests {
    /// Renders the request for `redirectURI`, lets the simulated provider approve it, and returns
    /// the callback it redirected to, as a loopback listener would.
    private struct LoopbackLikePresenter: HandoffPresenter {
        let provider: SimulatedProvider<TestClock>
        let redirectURI: URL
        let rendered = RenderedURLs()

        func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
            let url = request.authorizationURL(redirectingTo: redirectURI)
            rendered.append(url)
            do {
                return try provider.authorize(url, subject: "alice")
            } catch {
                throw .presentationFailed("the provider refused the request")
            }
        }
    }

    private final class RenderedURLs: Sendable {
        private let urls = Locked<[URL]>([])
        func append(_ url: URL) { urls.withLock { $0.append(url) } }
        var all: [URL] { urls.withLock { $0 } }
    }

    private func environment(presenterRedirect: URL) throws -> (Session, LoopbackLikePresenter, SimulatedProvider<TestClock>) {
        let registered = URL(string: "http://127.0.0.1/callback")!
        let env = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(redirectURI: registered))
        let presenter = LoopbackLikePresenter(provider: env.provider, redirectURI: presenterRedirect)
        let session = Session(
            configuration: env.configuration, transport: env.provider, store: env.store, presenter: presenter, clock: env.clock,
            wallClock: { env.clock.wallClockNow() })
        return (session, presenter, env.provider)
    }

    private static func redirectParameter(_ url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value
    }

    @Test("the code is exchanged with the presenter's own loopback redirect URI")
    func exchangesWithThePresentersRedirect() async throws {
        let (session, presenter, provider) = try environment(presenterRedirect: URL(string: "http://127.0.0.1:49152/callback")!)
        let identity = try await session.signIn()
        #expect(identity.subject == "alice")
        #expect(session.stage == .active)
        #expect(presenter.rendered.all.map(Self.redirectParameter) == ["http://127.0.0.1:49152/callback"])
        // The simulated provider refuses an exchange whose redirect_uri differs from the request's.
        #expect(provider.requestCount(grantType: "authorization_code") == 1)
    }

    @Test("a non-loopback redirect URI is not rendered: the request keeps the configured one")
    func refusesNonLoopbackRedirects() async throws {
        let (session, presenter, _) = try environment(presenterRedirect: URL(string: "https://attacker.example/callback")!)
        _ = try await session.signIn()
        #expect(presenter.rendered.all.map(Self.redirectParameter) == ["http://127.0.0.1/callback"])
    }

    @Test("a callback at the presenter's redirect URI is not accepted through handle(_:)")
    func handleKeepsToTheConfiguredRedirect() async throws {
        let env = try SimulatedSessionEnvironment()
        #expect(env.session.handle(URL(string: "http://127.0.0.1:49152/callback?code=x&state=y")!) == false)
    }
}
