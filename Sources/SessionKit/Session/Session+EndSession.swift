import Foundation
import SessionKitCore
import SessionKitJOSE

extension Session {
    /// What the end of a sign-out can do about the provider's browser session: the end-session
    /// URL with `id_token_hint`, `client_id`, `post_logout_redirect_uri` and a fresh `state`, or why
    /// not.
    func endSessionPlan(idTokenHint: Secret?) -> EndSessionPlan {
        guard configuration.endsProviderSessionAtSignOut else { return .notRequested }
        guard configuration.provider.endSessionEndpoint != nil else {
            return .unavailable("the provider advertises no end-session endpoint")
        }
        guard let redirect = configuration.postLogoutRedirectURI else { return .unavailable("no post-logout redirect URI is configured") }
        let request: EndSessionRequest
        do {
            request = try EndSessionRequest(
                idTokenHint: idTokenHint, postLogoutRedirectURI: redirect, state: Secret(try RandomToken.generate(byteCount: 32)))
        } catch {
            return .unavailable("no state could be made for the end-session request")
        }
        guard let url = client.endSessionURL(for: request) else { return .unavailable("the provider advertises no end-session endpoint") }
        return .open(EndSessionOrder(request: request, url: url))
    }

    /// Opens the provider's end-session page through the presenter, as a handoff of its own kind.
    func presentEndSession(_ order: EndSessionOrder, generation: UInt64, cancelledBy token: CancelToken) {
        // An order is made only with a post-logout redirect URI (``endSessionPlan(idTokenHint:)``).
        guard let postLogoutRedirectURI = order.request.postLogoutRedirectURI else {
            let error = HandoffError.presentationFailed("no post-logout redirect URI")
            modify { $0.presenterFailed(error, generation: generation) }
            return
        }
        let client = self.client
        let redirects = HandoffRedirects { redirectURI in
            var request = order.request
            request.postLogoutRedirectURI = redirectURI
            return client.endSessionURL(for: request) ?? order.url
        }
        let request = HandoffRequest(
            authorizationURL: order.url, redirectURI: postLogoutRedirectURI, kind: .endSession, redirects: redirects)
        owner.spawn(cancelledBy: token) { await self.runEndSessionPresenter(request, redirects: redirects, generation: generation) }
    }

    /// Feeds a URL that may be the provider's return from its end-session page.
    func consumeEndSessionReturn(_ url: URL, redirectURI: URL?) -> Bool {
        modifyAnswering { $0.endSessionReturned(url, redirectURI: redirectURI) }
    }

    private func runEndSessionPresenter(_ request: HandoffRequest, redirects: HandoffRedirects, generation: UInt64) async {
        do throws(HandoffError) {
            guard let returned = try await presenter.present(request) else {
                // App-to-app: the return arrives through handle(_:).
                return
            }
            if !consumeEndSessionReturn(returned, redirectURI: redirects.redirectURI(matching: returned)) {
                let error = HandoffError.presentationFailed("the return does not match the post-logout redirect URI")
                modify { $0.presenterFailed(error, generation: generation) }
            }
        } catch {
            modify { $0.presenterFailed(error, generation: generation) }
        }
    }
}
