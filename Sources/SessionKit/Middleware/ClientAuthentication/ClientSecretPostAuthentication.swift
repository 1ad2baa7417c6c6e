import Foundation
public import SessionKitCore

/// `client_secret_post` (RFC 6749 §2.3.1): `client_id` and `client_secret` in the form body of
/// the requests to the endpoints that authenticate the client. Other endpoints' requests pass
/// unchanged. The secret is never rendered.
public struct ClientSecretPostAuthentication: RequestMiddleware, CustomStringConvertible {
    /// The client id the secret belongs to.
    public let clientID: String
    let secret: Secret
    /// The endpoints whose request bodies carry the secret.
    public let endpoints: Set<ProviderEndpoint>

    /// Authenticates `clientID` with `secret` at `endpoints` (token, revocation and device
    /// authorization by default).
    public init(clientID: String, secret: Secret, endpoints: Set<ProviderEndpoint> = ProviderEndpoint.clientAuthenticated) {
        self.clientID = clientID
        self.secret = secret
        self.endpoints = endpoints
    }

    /// Appends `client_secret` (and `client_id` when the body has none) on ``endpoints``.
    public func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard endpoints.contains(endpoint) else { return try await next(request) }
        return try await next(FormEncoding.appending([("client_secret", secret.value)], to: request, clientID: clientID))
    }

    /// The method and client id; never the secret.
    public var description: String { "ClientSecretPostAuthentication(clientID: \(clientID), secret: <redacted>)" }
}
