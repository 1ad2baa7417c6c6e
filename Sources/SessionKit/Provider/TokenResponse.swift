import Foundation

/// A token endpoint's success response, decoded strictly (RFC 6749 §5.1).
public struct TokenResponse: Sendable, Equatable {
    /// The access token.
    public var accessToken: Secret
    /// `token_type`; always `Bearer` (checked case-insensitively).
    public var tokenType: String
    /// Seconds until the access token expires, when the provider said.
    public var expiresIn: Double?
    /// A (possibly rotated) refresh token.
    public var refreshToken: Secret?
    /// The id_token, not yet verified.
    public var idToken: Secret?
    /// The granted scope, when it differs from the request.
    public var scope: String?

    /// Creates a response.
    public init(accessToken: Secret, tokenType: String = "Bearer", expiresIn: Double? = nil, refreshToken: Secret? = nil, idToken: Secret? = nil, scope: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    private struct Wire: Decodable {
        var access_token: String
        var token_type: String
        var expires_in: Double?
        var refresh_token: String?
        var id_token: String?
        var scope: String?
    }

    /// Decodes a response body; every member must have the type the RFC gives it.
    public init(decoding body: Data) throws(ProviderError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: body)
        } catch {
            throw .invalidResponse("token response does not decode")
        }
        guard !wire.access_token.isEmpty else { throw .invalidResponse("access_token is empty") }
        guard wire.token_type.caseInsensitiveCompare("bearer") == .orderedSame else {
            throw .invalidResponse("token_type is not Bearer")
        }
        if let expiresIn = wire.expires_in, !(expiresIn.isFinite && expiresIn >= 0) {
            throw .invalidResponse("expires_in is not a non-negative number")
        }
        if wire.refresh_token?.isEmpty == true || wire.id_token?.isEmpty == true {
            throw .invalidResponse("empty token")
        }
        self.init(
            accessToken: Secret(wire.access_token), tokenType: wire.token_type, expiresIn: wire.expires_in,
            refreshToken: wire.refresh_token.map(Secret.init), idToken: wire.id_token.map(Secret.init), scope: wire.scope)
    }
}
