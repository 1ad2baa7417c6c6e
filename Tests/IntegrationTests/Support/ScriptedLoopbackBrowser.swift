import Foundation
import SessionKit
import Synchronization

/// A browser for the ``LoopbackPresenter``: signs the user in at the real provider, then follows
/// the provider's redirect to the presenter's listener over real HTTP, as a browser would.
final class ScriptedLoopbackBrowser: Sendable {
    /// One sign-in as the browser saw it; no code or state is kept.
    struct Visit: Sendable {
        /// The redirect URI the authorization request named.
        var requestedRedirect: URL?
        /// Where the provider sent the browser: scheme, host, port and path only.
        var redirectedTo: String
        var pageStatus: Int
        var page: String
    }

    private let authorizer: LocalProviderPresenter
    private let transport: any HTTPTransport
    private let recorded = Locked<[Visit]>([])

    init(environment: ProviderEnvironment, user: String, transport: any HTTPTransport) {
        authorizer = LocalProviderPresenter(environment: environment, user: user, transport: transport)
        self.transport = transport
    }

    var visits: [Visit] { recorded.withLock { $0 } }

    var opener: BrowserOpener {
        BrowserOpener { url throws(HandoffError) in try await self.open(url) }
    }

    private func open(_ url: URL) async throws(HandoffError) {
        let callback = try await authorizer.authorize(url)
        let page: HTTPResponse
        do {
            page = try await transport.send(HTTPRequest(method: "GET", url: callback))
        } catch {
            throw .presentationFailed("the listener could not be reached: \(error)")
        }
        let requested = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "redirect_uri" }?.value.flatMap(URL.init(string:))
        let visit = Visit(
            requestedRedirect: requested,
            redirectedTo: "\(callback.scheme ?? "")://\(callback.host ?? ""):\(callback.port ?? 0)\(callback.path)",
            pageStatus: page.status, page: String(decoding: page.body, as: UTF8.self))
        recorded.withLock { $0.append(visit) }
    }
}
