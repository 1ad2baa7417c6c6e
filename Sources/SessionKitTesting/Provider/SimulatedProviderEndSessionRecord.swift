public import Foundation

/// One visit to the ``SimulatedProvider``'s end-session endpoint that ended a browser session.
///
/// It holds no secret: neither the hint token nor `state` is kept.
public struct SimulatedProviderEndSessionRecord: Sendable, Equatable {
    /// The subject the `id_token_hint` named; nil without a hint (every browser session ended).
    public var subject: String?
    /// Whether `client_id` was sent.
    public var hadClientID: Bool
    /// The `post_logout_redirect_uri`, when one was asked for.
    public var postLogoutRedirectURI: String?
    /// Whether `state` was sent.
    public var hadState: Bool
    /// The provider's wall-clock time of the visit.
    public var receivedAt: Date
}
