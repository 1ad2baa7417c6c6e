public import Foundation
public import SessionKitCore
import SessionKitJOSE

/// A token endpoint's success response, decoded strictly (RFC 6749 §5.1).
public struct TokenResponse: Sendable, Equatable {
    /// The access token.
    public var accessToken: Secret
    /// `token_type`: `Bearer`, or `DPoP` for a sender-constrained token (RFC 9449 §5), checked
    /// case-insensitively. Whether `DPoP` is acceptable is the ``DPoPMiddleware``'s decision.
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

    /// Decodes a response body; every member must have the type the RFC gives it.
    public init(decoding body: Data) throws(ProviderError) {
        // The strict parser the id_token's JSON goes through: a member named twice is refused, as
        // its meaning would depend on the parser (RFC 8259 §4), and unknown members are skipped.
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(Array(body), maximumDepth: 64)
        } catch {
            throw .invalidResponse("token response does not decode")
        }
        /// A string member; `nil` when it is absent or `null`; anything else does not decode.
        func string(_ name: String) throws(ProviderError) -> String? {
            switch object[name] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            case .bool?, .number?, .array?, .object?: throw .invalidResponse("token response does not decode")
            }
        }
        guard let accessToken = try string("access_token"), let tokenType = try string("token_type") else {
            throw .invalidResponse("token response does not decode")
        }
        let expiresIn: Double?
        switch object["expires_in"] {
        case nil, .null?: expiresIn = nil
        case .number(let seconds)?: expiresIn = seconds
        case .bool?, .string?, .array?, .object?: throw .invalidResponse("token response does not decode")
        }
        let refreshToken = try string("refresh_token")
        let idToken = try string("id_token")
        let scope = try string("scope")
        guard !accessToken.isEmpty else { throw .invalidResponse("access_token is empty") }
        guard ASCII.caseInsensitiveEquals(tokenType, "bearer") || ASCII.caseInsensitiveEquals(tokenType, "dpop") else {
            throw .invalidResponse("token_type is neither Bearer nor DPoP")
        }
        if let expiresIn, !(expiresIn.isFinite && expiresIn >= 0) {
            throw .invalidResponse("expires_in is not a non-negative number")
        }
        if refreshToken?.isEmpty == true || idToken?.isEmpty == true {
            throw .invalidResponse("empty token")
        }
        self.init(
            accessToken: Secret(accessToken), tokenType: tokenType, expiresIn: expiresIn,
            refreshToken: refreshToken.map(Secret.init), idToken: idToken.map(Secret.init), scope: scope)
    }
}
