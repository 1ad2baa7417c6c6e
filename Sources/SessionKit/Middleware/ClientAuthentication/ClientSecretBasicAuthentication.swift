import Foundation
public import SessionKitCore

/// `client_secret_basic` (RFC 6749 §2.3.1): the client id and secret in an HTTP Basic
/// `Authorization` header, each form-encoded first (RFC 6749 Appendix B) as the section requires,
/// on the endpoints that authenticate the client. Other endpoints' requests pass unchanged.
///
/// The request body keeps its `client_id`; no secret goes into it. The secret is never rendered.
public struct ClientSecretBasicAuthentication: RequestMiddleware, CustomStringConvertible {
    /// The client id the secret belongs to.
    public let clientID: String
    let secret: Secret
    /// The endpoints whose requests carry the header.
    public let endpoints: Set<ProviderEndpoint>

    /// Authenticates `clientID` with `secret` at `endpoints` (token, revocation and device
    /// authorization by default).
    public init(clientID: String, secret: Secret, endpoints: Set<ProviderEndpoint> = ProviderEndpoint.clientAuthenticated) {
        self.clientID = clientID
        self.secret = secret
        self.endpoints = endpoints
    }

    /// The header value: `Basic` and base64 of the form-encoded id, a colon, the form-encoded secret.
    var authorization: String {
        let credentials = Self.formEncoded(clientID) + ":" + Self.formEncoded(secret.value)
        return "Basic " + Data(credentials.utf8).base64EncodedString()
    }

    /// `application/x-www-form-urlencoded` of one value: unreserved characters kept, a space as
    /// `+`, every other byte percent-encoded (RFC 6749 Appendix B).
    static func formEncoded(_ text: String) -> String {
        FormEncoding.escape(text).replacingOccurrences(of: "%20", with: "+")
    }

    /// Adds the header on ``endpoints``, replacing any `Authorization` the request had.
    public func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard endpoints.contains(endpoint) else { return try await next(request) }
        var request = request
        request.headers.removeAll { ASCII.caseInsensitiveEquals($0.name, "Authorization") }
        request.headers.append(("Authorization", authorization))
        return try await next(request)
    }

    /// The method and client id; never the secret.
    public var description: String { "ClientSecretBasicAuthentication(clientID: \(clientID), secret: <redacted>)" }
}
