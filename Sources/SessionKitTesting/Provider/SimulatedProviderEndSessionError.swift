/// Why ``SimulatedProvider/endSession(_:)`` showed an error page instead of ending the session
/// and redirecting (RP-Initiated Logout 1.0 §2, §3).
@nonexhaustive
public enum SimulatedProviderEndSessionError: Error, Sendable, Equatable {
    /// The URL is not this provider's end-session endpoint.
    case notEndSessionEndpoint
    /// A parameter is repeated, or the query does not decode.
    case invalidRequest
    /// `client_id` is not the configured client, or a redirect was asked for without any way to
    /// tell the client (neither `client_id` nor `id_token_hint`).
    case unknownClient
    /// `id_token_hint` is not an id_token this provider signed for the client.
    case invalidIDTokenHint
    /// `post_logout_redirect_uri` is not registered for the client.
    case unregisteredRedirectURI
}
