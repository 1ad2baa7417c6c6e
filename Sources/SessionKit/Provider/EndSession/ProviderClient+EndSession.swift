public import Foundation

extension ProviderClient {
    /// The end-session URL for `request` (OpenID Connect RP-Initiated Logout 1.0 §2), for the
    /// presenter to open; `nil` when the provider advertises no end-session endpoint.
    ///
    /// Parameters go in the query, after any query the endpoint already has, in the order §2 lists
    /// them: `id_token_hint`, `logout_hint`, `client_id`, `post_logout_redirect_uri`, `state`,
    /// `ui_locales`. Building it sends nothing.
    public func endSessionURL(for request: EndSessionRequest) -> URL? {
        guard let endpoint = configuration.endSessionEndpoint,
            var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
        else { return nil }
        let fields = request.parameters(clientID: configuration.clientID)
        let pairs = fields.map { "\(FormEncoding.escape($0.0))=\(FormEncoding.escape($0.1))" }
        let query = ([components.percentEncodedQuery ?? ""] + pairs).filter { !$0.isEmpty }.joined(separator: "&")
        components.percentEncodedQuery = query.isEmpty ? nil : query
        return components.url
    }
}
