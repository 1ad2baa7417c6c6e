import Foundation
import SessionKit

/// Completes the authorization step without a browser: `GET` the authorization URL with the
/// provider's test-user header; the provider answers 302 and the callback URL (with the code) is
/// the raw `Location` header. ``URLSessionTransport`` never follows redirects, so the 302 is seen.
struct HeaderSignInPresenter: HandoffPresenter {
    var header: String
    var user: String
    var transport: any HTTPTransport

    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(method: "GET", url: request.authorizationURL, headers: [(header, user)]))
        } catch {
            throw .presentationFailed("the authorization request failed: \(error)")
        }
        guard (300...399).contains(response.status), let location = response.header("location"), let callback = URL(string: location)
        else {
            throw .presentationFailed("the provider answered \(response.status) without a redirect")
        }
        return callback
    }
}
