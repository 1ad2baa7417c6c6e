public import Foundation

/// One request the registration endpoint received (RFC 7591 §3.1) and how it answered; no secret.
public struct SimulatedProviderRegistrationRecord: Sendable, Equatable {
    /// The client id issued, or nil when the request was refused.
    public let clientID: String?
    /// `redirect_uris` as sent.
    public let redirectURIs: [String]
    /// `grant_types` as sent.
    public let grantTypes: [String]
    /// `response_types` as sent.
    public let responseTypes: [String]
    /// `token_endpoint_auth_method` as sent.
    public let tokenEndpointAuthMethod: String?
    /// `application_type` as sent.
    public let applicationType: String?
    /// The RFC 7591 §3.2.2 error the provider answered with, nil on success.
    public let error: String?
    /// When the request arrived, on the provider's wall clock.
    public let receivedAt: Date
}
