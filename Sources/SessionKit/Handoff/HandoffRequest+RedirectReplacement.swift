import Foundation

extension HandoffRequest {
    /// The authorization URL with its `redirect_uri` replaced by `redirectURI`, every other
    /// parameter kept as it was.
    func authorizationURLReplacingRedirect(with redirectURI: URL) -> URL {
        guard var components = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false),
            let query = components.percentEncodedQuery
        else { return authorizationURL }
        components.percentEncodedQuery =
            query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
                pair.hasPrefix("redirect_uri=") ? "redirect_uri=" + FormEncoding.escape(redirectURI.absoluteString) : String(pair)
            }.joined(separator: "&")
        return components.url ?? authorizationURL
    }
}
