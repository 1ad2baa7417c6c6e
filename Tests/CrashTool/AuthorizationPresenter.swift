import Foundation
import SessionKit

/// Completes authorization without a browser: `GET`s the authorization URL as a signed-in user
/// (named in a request header the test provider trusts) and returns the callback from the 302.
struct AuthorizationPresenter: HandoffPresenter {
    static let userHeader = "X-Test-User"

    var transport: any HTTPTransport
    var user: String

    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(method: "GET", url: request.authorizationURL, headers: [(Self.userHeader, user)]))
        } catch {
            throw .presentationFailed("the authorization request failed: \(error)")
        }
        guard (300...399).contains(response.status), let location = response.header("Location"),
            let callback = URL(string: location)
        else {
            throw .presentationFailed("the authorization endpoint answered \(response.status) without a redirect")
        }
        return callback
    }
}
