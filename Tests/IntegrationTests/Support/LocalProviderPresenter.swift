import Foundation
import SessionKit

/// Completes the authorization step the way each local provider allows without a browser, and
/// returns the callback URL from the provider's redirect.
///
/// - django-oauth-toolkit: `GET` the authorization URL with the test-user header.
/// - oidc-provider-mock: `POST` the authorization URL with the form field `sub`.
/// - idpyoidc (behind `Scripts/providers/idp_server.py`): `GET` with the test-user header, as DOT.
///
/// It sends through a real ``URLSessionTransport``, which does not follow the redirect: the
/// `Location` header is the answer.
struct LocalProviderPresenter: HandoffPresenter {
    var environment: ProviderEnvironment
    var user: String
    var transport: any HTTPTransport

    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        try await authorize(request.authorizationURL)
    }

    /// Signs `user` in at the authorization URL and returns the callback URL the provider
    /// redirected to (the `Location` of its answer).
    func authorize(_ authorizationURL: URL) async throws(HandoffError) -> URL {
        let authorization: HTTPRequest
        switch environment.kind {
        case .djangoOAuthToolkit, .idpyoidc:
            authorization = HTTPRequest(
                method: "GET", url: authorizationURL, headers: [(environment.userHeader ?? "X-Test-User", user)])
        case .oidcProviderMock:
            let field = user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user
            authorization = HTTPRequest(
                method: "POST", url: authorizationURL,
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data("sub=\(field)".utf8))
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(authorization)
        } catch {
            throw .presentationFailed("the authorization request failed: \(error)")
        }
        guard (300...399).contains(response.status), let location = response.header("location"),
            let callback = URL(string: location)
        else {
            throw .presentationFailed("the provider answered \(response.status) without a redirect")
        }
        return callback
    }
}
