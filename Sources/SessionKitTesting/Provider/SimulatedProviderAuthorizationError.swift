/// Why ``SimulatedProvider/authorize(_:subject:decision:)`` could not redirect back at all.
///
/// As RFC 6749 §4.1.2.1 requires, a provider never redirects to an unverified redirect URI: it
/// shows an error page instead. Errors it can report to a verified redirect URI (unsupported
/// response type, missing PKCE) come back inside the callback URL, not as these.
@nonexhaustive
public enum SimulatedProviderAuthorizationError: Error, Sendable, Equatable {
    /// The URL is not this provider's authorization endpoint.
    case notAuthorizationEndpoint
    /// `client_id` is missing, repeated or not the configured client.
    case unknownClient
    /// `redirect_uri` is missing, repeated or not the one registered for the client.
    case redirectURIMismatch
}
