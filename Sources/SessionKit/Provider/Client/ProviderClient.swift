public import Foundation
public import SessionKitCore
public import SessionKitJOSE

/// Speaks the provider's protocol over an ``HTTPTransport``: authorization URLs, code exchange,
/// refresh, RFC 7009 revocation, app disconnect and the signing keys.
///
/// It holds no session state. Every request goes through one function, which passes it through
/// the ``RequestMiddleware`` chain and then the transport; every non-success answer becomes a
/// ``ProviderError`` that the retry policy can classify.
public struct ProviderClient: Sendable {
    /// Where the endpoints are and who the app is.
    public let configuration: ProviderConfiguration
    /// The seam every request goes through, after the middleware.
    public let transport: any HTTPTransport
    /// The request middleware, outermost first; empty by default.
    public let middleware: [any RequestMiddleware]
    /// The wall clock used to read `Retry-After` dates.
    let now: @Sendable () -> Date

    /// Creates a client whose requests pass through `middleware` (outermost first), then `transport`.
    public init(
        configuration: ProviderConfiguration, transport: any HTTPTransport, middleware: [any RequestMiddleware] = [],
        now: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.transport = transport
        self.middleware = middleware
        self.now = now
    }

    /// The authorization URL for one sign-in attempt (PKCE S256, `state`, `nonce`), redirecting to
    /// `redirectURI` (the configured one by default).
    public func authorizationURL(codeChallenge: String, state: String, nonce: String, redirectURI: URL? = nil) -> URL {
        var components = URLComponents(url: configuration.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        let fields: [(String, String)] =
            [
                ("response_type", "code"), ("client_id", configuration.clientID),
                ("redirect_uri", (redirectURI ?? configuration.redirectURI).absoluteString),
                ("scope", configuration.scopes.joined(separator: " ")),
                ("state", state), ("nonce", nonce), ("code_challenge", codeChallenge), ("code_challenge_method", "S256"),
            ] + middlewareAuthorizationParameters
        let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
        components.percentEncodedQuery =
            existing + fields.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
        return components.url!
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3 with the PKCE verifier); `redirectURI` is the
    /// one the authorization request named (the configured one by default).
    public func exchangeCode(_ code: Secret, codeVerifier: Secret, redirectURI: URL? = nil) async throws(ProviderError) -> TokenResponse {
        try await tokenRequest([
            ("grant_type", "authorization_code"), ("code", code.value),
            ("redirect_uri", (redirectURI ?? configuration.redirectURI).absoluteString),
            ("client_id", configuration.clientID), ("code_verifier", codeVerifier.value),
        ])
    }

    /// Refreshes (RFC 6749 §6).
    public func refresh(_ refreshToken: Secret) async throws(ProviderError) -> TokenResponse {
        try await tokenRequest([
            ("grant_type", "refresh_token"), ("refresh_token", refreshToken.value), ("client_id", configuration.clientID),
        ])
    }

    /// Revokes a refresh token (RFC 7009), or with `tokenTypeHint` `access_token` an access token.
    /// Returns `false` when the provider has no revocation endpoint.
    public func revoke(_ refreshToken: Secret, tokenTypeHint: String = "refresh_token") async throws(ProviderError) -> Bool {
        guard let endpoint = configuration.revocationEndpoint else { return false }
        let response = try await send(
            HTTPRequest(
                method: "POST", url: endpoint,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: FormEncoding.encode([
                    ("token", refreshToken.value), ("token_type_hint", tokenTypeHint), ("client_id", configuration.clientID),
                ])), to: .revocation)
        guard (200...299).contains(response.status) else { throw ProviderError.fromResponse(response, now: now()) }
        return true
    }

    /// Disconnects the app at the provider (`DELETE`, Bearer: the device key). 2xx and 404 count as
    /// confirmed; anything else throws. Returns `false` when the provider offers no disconnect.
    public func disconnect(deviceKey: Secret) async throws(ProviderError) -> Bool {
        guard let endpoint = configuration.disconnectEndpoint else { return false }
        let response = try await send(
            HTTPRequest(
                method: "DELETE", url: endpoint, headers: [("Authorization", "Bearer \(deviceKey.value)"), ("Accept", "application/json")]),
            to: .disconnect)
        guard (200...299).contains(response.status) || response.status == 404 else {
            throw ProviderError.fromResponse(response, now: now())
        }
        return true
    }

    /// Fetches the provider's signing keys.
    public func fetchKeys() async throws(ProviderError) -> JWKS {
        let response = try await send(
            HTTPRequest(method: "GET", url: configuration.jwksURI, headers: [("Accept", "application/json")]), to: .keySet)
        guard response.status == 200 else { throw ProviderError.fromResponse(response, now: now()) }
        do {
            return try JWKS(jsonData: response.body)
        } catch {
            throw .invalidResponse("JWKS does not decode")
        }
    }

    /// What the middleware adds to the authorization request (`dpop_jkt`), outermost first.
    var middlewareAuthorizationParameters: [(String, String)] {
        middleware.flatMap { $0.authorizationParameters().map { ($0.name, $0.value) } }
    }

    func tokenRequest(_ fields: [(String, String)]) async throws(ProviderError) -> TokenResponse {
        let response = try await send(
            HTTPRequest(
                method: "POST", url: configuration.tokenEndpoint,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: FormEncoding.encode(fields)), to: .token)
        guard response.status == 200 else { throw ProviderError.fromResponse(response, now: now()) }
        return try TokenResponse(decoding: response.body)
    }
}
