public import Foundation
public import SessionKitCore

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
    public init(
        accessToken: Secret, tokenType: String = "Bearer", expiresIn: Double? = nil, refreshToken: Secret? = nil, idToken: Secret? = nil,
        scope: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.scope = scope
    }

    private struct Wire: Decodable {
        var accessToken: String
        var tokenType: String
        var expiresIn: Double?
        var refreshToken: String?
        var idToken: String?
        var scope: String?

        private enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
            case idToken = "id_token"
            case scope
        }
    }

    /// Decodes a response body; every member must have the type the RFC gives it.
    public init(decoding body: Data) throws(ProviderError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: body)
        } catch {
            throw .invalidResponse("token response does not decode")
        }
        guard !wire.accessToken.isEmpty else { throw .invalidResponse("access_token is empty") }
        guard wire.tokenType.caseInsensitiveCompare("bearer") == .orderedSame else {
            throw .invalidResponse("token_type is not Bearer")
        }
        if let expiresIn = wire.expiresIn, !(expiresIn.isFinite && expiresIn >= 0) {
            throw .invalidResponse("expires_in is not a non-negative number")
        }
        if wire.refreshToken?.isEmpty == true || wire.idToken?.isEmpty == true {
            throw .invalidResponse("empty token")
        }
        self.init(
            accessToken: Secret(wire.accessToken), tokenType: wire.tokenType, expiresIn: wire.expiresIn,
            refreshToken: wire.refreshToken.map(Secret.init), idToken: wire.idToken.map(Secret.init), scope: wire.scope)
    }
}
