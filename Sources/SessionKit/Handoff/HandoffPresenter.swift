import Foundation

/// What a presenter is asked to show: the provider's authorization page.
///
/// The authorization URL carries this attempt's `state`, `nonce` and PKCE challenge, so every
/// rendering (`description`, `debugDescription`, `dump`) shows the endpoint only.
public struct HandoffRequest: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The authorization URL, with PKCE challenge, state and nonce.
    public var authorizationURL: URL
    /// The redirect URI the answer will come back to.
    public var redirectURI: URL
    /// Renders this attempt's authorization request for another redirect URI, and remembers it.
    private let redirects: HandoffRedirects?

    /// Creates a request.
    public init(authorizationURL: URL, redirectURI: URL) {
        self.authorizationURL = authorizationURL
        self.redirectURI = redirectURI
        self.redirects = nil
    }

    init(authorizationURL: URL, redirectURI: URL, redirects: HandoffRedirects) {
        self.authorizationURL = authorizationURL
        self.redirectURI = redirectURI
        self.redirects = redirects
    }

    /// The same authorization request with another redirect URI: a loopback listener's
    /// `http://127.0.0.1:PORT/path` (RFC 8252 §7.3), chosen per attempt.
    ///
    /// The session then accepts the callback the presenter returns only at that URI and exchanges
    /// the code with it. Only `http` URIs on `127.0.0.1` or `[::1]` with a port are accepted; any
    /// other URI, or a request made by hand with ``init(authorizationURL:redirectURI:)``, returns
    /// ``authorizationURL`` unchanged.
    public func authorizationURL(redirectingTo redirectURI: URL) -> URL {
        guard let redirects, HandoffRedirects.isLoopbackRedirect(redirectURI) else { return authorizationURL }
        return redirects.render(redirectURI)
    }

    /// The authorization endpoint and the redirect URI, without the query.
    public var description: String {
        var endpoint = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)
        endpoint?.query = nil
        endpoint?.fragment = nil
        return "HandoffRequest(\(endpoint?.string ?? "<authorization endpoint>")?<redacted>, redirect \(redirectURI.absoluteString))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Hides the authorization URL's query from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }

    /// Compares the authorization URL and the redirect URI.
    public static func == (lhs: HandoffRequest, rhs: HandoffRequest) -> Bool {
        lhs.authorizationURL == rhs.authorizationURL && lhs.redirectURI == rhs.redirectURI
    }
}

/// Why a presenter ended a handoff without an answer.
public enum HandoffError: Error, Sendable, Equatable {
    /// The person closed the page or the other app without choosing.
    case cancelled
    /// The page or app could not be shown.
    case presentationFailed(String)
}

/// The seam that takes the person to the identity provider (app-to-app first, browser fallback).
public protocol HandoffPresenter: Sendable {
    /// Shows the authorization page.
    ///
    /// Returns the callback URL when the presenter received it itself (a browser session, a
    /// loopback listener), or `nil` when the answer will arrive through `Session.handle(_:)` (an
    /// app-to-app open). Throws ``HandoffError/cancelled`` when the person closed it. The session
    /// cancels the calling task when the handoff ends for any other reason (timeout, sign-out).
    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL?
}
