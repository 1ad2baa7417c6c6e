public import Foundation

/// What one authorization request asked the ``SimulatedProvider`` for beyond the fixed request,
/// and how it was answered; kept so tests can check that options reached the provider.
///
/// It holds no secret: `state`, `nonce`, the PKCE challenge and the `id_token_hint` itself are not
/// kept (only whether a hint was sent).
public struct SimulatedProviderAuthorizationRecord: Sendable, Equatable {
    /// The subject that played the person.
    public var subject: String
    /// The `scope` asked for, split on spaces.
    public var scopes: [String]
    /// The `prompt` values.
    public var prompt: [String]
    /// `max_age`, when sent.
    public var maxAge: Int?
    /// `login_hint`, when sent.
    public var loginHint: String?
    /// Whether an `id_token_hint` was sent.
    public var hadIDTokenHint: Bool
    /// The `ui_locales` values.
    public var uiLocales: [String]
    /// The `acr_values` values.
    public var acrValues: [String]
    /// Whether `acr` was requested as an essential claim (the `claims` parameter).
    public var acrIsEssential: Bool
    /// Every `resource` indicator (RFC 8707), in order.
    public var resources: [String]
    /// The names of parameters the provider does not interpret, sorted.
    public var otherParameterNames: [String]
    /// Whether the person had to authenticate (no session, `prompt=login`, or `max_age` exceeded).
    public var authenticated: Bool
    /// The `error` the callback carried, or nil when it carried a code.
    public var error: String?
    /// The provider's wall-clock time of the request.
    public var receivedAt: Date
}
