import Foundation
import SessionKit
import Synchronization

/// A browser for the shipped ``LoopbackPresenter`` that keeps the provider's cookies (through
/// ``ScriptedBrowser``), so single sign-on and its end are real: it opens an authorization or an
/// end-session URL at the provider, then follows the provider's redirect to the presenter's
/// listener over real HTTP.
final class CookieLoopbackBrowser: Sendable {
    /// One page as the browser saw it; no code or state is kept.
    struct Visit: Sendable {
        var endSession: Bool
        /// Where the provider sent the browser: scheme, host, port and path only.
        var redirectedTo: String
        /// The names of the parameters the redirect carried.
        var returnedFields: [String]
        var pageStatus: Int
        var page: String
    }

    let browser: ScriptedBrowser
    private let transport: any HTTPTransport
    private let recorded = Locked<[Visit]>([])
    private let signedInOnce = Locked(false)

    init(browser: ScriptedBrowser, transport: any HTTPTransport) {
        self.browser = browser
        self.transport = transport
    }

    var visits: [Visit] { recorded.withLock { $0 } }

    var opener: BrowserOpener {
        BrowserOpener { url throws(HandoffError) in try await self.open(url) }
    }

    private func open(_ url: URL) async throws(HandoffError) {
        let endSession =
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .contains { $0.name == "post_logout_redirect_uri" } == true
        let redirect: URL
        do {
            if endSession {
                guard let location = try await browser.endSession(url) else { throw HandoffError.presentationFailed("no redirect") }
                redirect = location
            } else {
                // The person types the password once; afterwards the provider's cookie signs in.
                let first = signedInOnce.withLock { done in
                    defer { done = true }
                    return !done
                }
                guard let location = try await browser.authorize(url, signIn: first) else {
                    throw HandoffError.presentationFailed("no redirect")
                }
                redirect = location
            }
        } catch {
            throw .presentationFailed("the provider's page failed: \(error)")
        }
        let page: HTTPResponse
        do {
            page = try await transport.send(HTTPRequest(method: "GET", url: redirect))
        } catch {
            throw .presentationFailed("the listener could not be reached: \(error)")
        }
        let fields = URLComponents(url: redirect, resolvingAgainstBaseURL: false)?.queryItems?.map(\.name) ?? []
        let visit = Visit(
            endSession: endSession,
            redirectedTo: "\(redirect.scheme ?? "")://\(redirect.host ?? ""):\(redirect.port ?? 0)\(redirect.path)",
            returnedFields: fields, pageStatus: page.status, page: String(decoding: page.body, as: UTF8.self))
        recorded.withLock { $0.append(visit) }
    }
}
