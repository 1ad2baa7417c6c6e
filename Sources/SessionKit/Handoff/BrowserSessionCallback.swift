public import Foundation

/// Which navigation ends a browser session: the redirect to the app's callback.
///
/// Made from the redirect URI: a custom scheme (`com.example.app://oauth/callback`) is watched for
/// by scheme, an `https` redirect URI (a universal link) by host and path.
@nonexhaustive
public enum BrowserSessionCallback: Sendable, Hashable {
    /// Any URL with this scheme ends the session.
    case customScheme(String)
    /// A URL with this host and path ends the session.
    case https(host: String, path: String)

    /// The callback a browser session should watch for to catch `redirectURI`.
    ///
    /// Returns `nil` for a redirect URI no browser session can catch: plain `http` (use
    /// ``LoopbackPresenter`` for loopback redirect URIs) or one without a scheme or host.
    public init?(redirectURI: URL) {
        guard let components = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased()
        else { return nil }
        switch scheme {
        case "http":
            return nil
        case "https":
            guard let host = components.host, !host.isEmpty else { return nil }
            self = .https(host: host.lowercased(), path: components.path.isEmpty ? "/" : components.path)
        default:
            self = .customScheme(scheme)
        }
    }
}
