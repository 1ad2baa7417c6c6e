public import Foundation

extension ProviderClient {
    /// The authorization URL for one sign-in attempt (PKCE S256, `state`, `nonce`) with request
    /// options: `prompt`, `max_age`, hints, `ui_locales`, `acr_values`, RFC 8707 `resource`, the
    /// offline-access policy's scope (with `prompt=consent` whenever `offline_access` is asked for,
    /// OpenID Connect Core §11, unless the policy is
    /// ``AuthorizationRequestOptions/OfflineAccessPolicy/requestWithoutConsent``), and extra parameters.
    ///
    /// The library's own parameters come first (with what the middleware adds, such as DPoP's
    /// `dpop_jkt`), exactly as
    /// ``authorizationURL(codeChallenge:state:nonce:redirectURI:)`` sends them (`redirectURI` is a
    /// presenter's own loopback one, the configured one by default), then the options' in a fixed
    /// order, so the URL is the same for the same inputs. With ``AuthorizationRequestOptions/empty``
    /// the two functions give the same URL.
    ///
    /// - Throws: the options' ``AuthorizationRequestOptionsError`` when they break a rule (they are
    ///   validated again here, since a value may have been changed after it was built).
    public func authorizationURL(
        codeChallenge: String, state: String, nonce: String, redirectURI: URL? = nil, options: AuthorizationRequestOptions
    ) throws(AuthorizationRequestOptionsError) -> URL {
        try options.validate()
        var components = URLComponents(url: configuration.authorizationEndpoint, resolvingAgainstBaseURL: false)!
        let scopes = options.scopes(from: configuration.scopes)
        let fields: [(String, String)] =
            [
                ("response_type", "code"), ("client_id", configuration.clientID),
                ("redirect_uri", (redirectURI ?? configuration.redirectURI).absoluteString),
                ("scope", scopes.joined(separator: " ")), ("state", state), ("nonce", nonce),
                ("code_challenge", codeChallenge), ("code_challenge_method", "S256"),
            ] + middlewareAuthorizationParameters + options.parameters(scopes: scopes)
        let existing = components.percentEncodedQuery.map { $0 + "&" } ?? ""
        components.percentEncodedQuery =
            existing + fields.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }.joined(separator: "&")
        return components.url!
    }
}
