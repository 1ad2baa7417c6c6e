public import Foundation
import SessionKitCore
import SessionKitJOSE

/// `private_key_jwt` (RFC 7523 §2.2, OpenID Connect Core §9): a JWT signed with the client's
/// private key, in `client_assertion` with `client_assertion_type`
/// `urn:ietf:params:oauth:client-assertion-type:jwt-bearer`, on the endpoints that authenticate
/// the client. Other endpoints' requests pass unchanged.
///
/// Every request gets a fresh assertion: `iss` and `sub` the client id, `aud` the token endpoint
/// (or the issuer, as the provider expects), a fresh random `jti` (RFC 7523 §3: a provider may
/// refuse a replayed one), `iat` now and `exp` a minute later. The key is never rendered.
public struct PrivateKeyJWTAuthentication: RequestMiddleware, CustomStringConvertible {
    /// The assertion type of RFC 7523 §2.2.
    public static let assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

    /// The client id, the assertion's `iss` and `sub`.
    public let clientID: String
    let key: ClientAssertionKey
    /// The assertion's `aud`.
    public let audience: String
    /// The endpoints whose request bodies carry an assertion.
    public let endpoints: Set<ProviderEndpoint>
    /// How long an assertion is valid after its `iat`.
    public let lifetime: TimeInterval
    let now: @Sendable () -> Date

    /// Authenticates `clientID` with assertions signed by `key` for `audience` at `endpoints`
    /// (token, revocation and device authorization by default); `now` dates them.
    public init(
        clientID: String, key: ClientAssertionKey, audience: String,
        endpoints: Set<ProviderEndpoint> = ProviderEndpoint.clientAuthenticated,
        lifetime: TimeInterval = 60, now: @escaping @Sendable () -> Date
    ) {
        self.clientID = clientID
        self.key = key
        self.audience = audience
        self.endpoints = endpoints
        self.lifetime = lifetime
        self.now = now
    }

    /// One signed assertion with a fresh `jti`.
    func assertion() throws(ProviderError) -> String {
        let issuedAt = Int64(now().timeIntervalSince1970.rounded(.down))
        let jti: String
        do {
            jti = try RandomToken.generate(byteCount: 32)
        } catch {
            throw .invalidResponse("no random bytes for a client assertion's jti")
        }
        var claims = JSONObject()
        _ = claims.insert("iss", .string(clientID))
        _ = claims.insert("sub", .string(clientID))
        _ = claims.insert("aud", .string(audience))
        _ = claims.insert("jti", .string(jti))
        _ = claims.insert("iat", .number(Double(issuedAt)))
        _ = claims.insert("exp", .number(Double(issuedAt) + max(1, lifetime.rounded(.down))))
        do {
            return try key.sign(Array(JSONWriter.serialize(.object(claims)).utf8))
        } catch {
            throw .invalidResponse("the client assertion could not be signed")
        }
    }

    /// Appends `client_assertion_type` and a fresh `client_assertion` (and `client_id` when the
    /// body has none) on ``endpoints``.
    public func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard endpoints.contains(endpoint) else { return try await next(request) }
        let fields = [("client_assertion_type", Self.assertionType), ("client_assertion", try assertion())]
        return try await next(FormEncoding.appending(fields, to: request, clientID: clientID))
    }

    /// The method, client id, audience and key algorithm; never the key.
    public var description: String {
        "PrivateKeyJWTAuthentication(clientID: \(clientID), audience: \(audience), key: \(key))"
    }
}
