public import Foundation

/// What a presenter is asked to show: the provider's authorization page, or at sign-out its
/// end-session page (``Kind``).
///
/// Both are a URL to open in a browser and a redirect URI the browser comes back to, so a
/// presenter that opens any URL and captures the redirect serves both unchanged. The URL carries
/// this attempt's `state` (and for an authorization page its `nonce` and PKCE challenge), so every
/// rendering (`description`, `debugDescription`, `dump`) shows the endpoint only.
public struct HandoffRequest: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Which provider page the request opens.
    @nonexhaustive
    public enum Kind: String, Sendable, Hashable {
        /// The authorization page of a sign-in; the answer is the callback with `code` and `state`.
        case authorization
        /// The end-session page of a sign-out (OpenID Connect RP-Initiated Logout 1.0); the answer
        /// is the return to the post-logout redirect URI with `state`.
        case endSession
    }

    /// The page to open: for ``Kind/authorization`` the authorization URL, with PKCE challenge,
    /// state and nonce; for ``Kind/endSession`` the end-session URL.
    public var authorizationURL: URL
    /// The redirect URI the answer will come back to (the post-logout redirect URI for an end-session page).
    public var redirectURI: URL
    /// Which page this is.
    public var kind: Kind
    /// Renders this attempt's authorization request for another redirect URI, and remembers it.
    private let redirects: HandoffRedirects?

    /// The URL to open, whatever the kind (the same as ``authorizationURL``).
    public var url: URL { authorizationURL }

    /// Creates an authorization request.
    public init(authorizationURL: URL, redirectURI: URL) {
        self.authorizationURL = authorizationURL
        self.redirectURI = redirectURI
        self.kind = .authorization
        self.redirects = nil
    }

    /// Creates an end-session request: open `endSessionURL`; the browser comes back to `postLogoutRedirectURI`.
    public init(endSessionURL: URL, postLogoutRedirectURI: URL) {
        self.authorizationURL = endSessionURL
        self.redirectURI = postLogoutRedirectURI
        self.kind = .endSession
        self.redirects = nil
    }

    init(authorizationURL: URL, redirectURI: URL, kind: Kind = .authorization, redirects: HandoffRedirects) {
        self.authorizationURL = authorizationURL
        self.redirectURI = redirectURI
        self.kind = kind
        self.redirects = redirects
    }

    /// The same authorization request with another redirect URI: a loopback listener's
    /// `http://127.0.0.1:PORT/path` (RFC 8252 §7.3), chosen per attempt.
    ///
    /// The session then accepts the callback the presenter returns only at that URI and exchanges
    /// the code with it. For an end-session page the URI is the post-logout redirect URI, and the
    /// return is accepted only there (the provider must have it registered; many match any
    /// loopback port). Only `http` URIs on `127.0.0.1` or `[::1]` with a port are accepted; any
    /// other URI, or a request made by hand with ``init(authorizationURL:redirectURI:)``, returns
    /// ``authorizationURL`` unchanged.
    public func authorizationURL(redirectingTo redirectURI: URL) -> URL {
        guard let redirects, HandoffRedirects.isLoopbackRedirect(redirectURI) else { return authorizationURL }
        return redirects.render(redirectURI)
    }

    /// The endpoint (with the kind, for an end-session page) and the redirect URI, without the query.
    public var description: String {
        var endpoint = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)
        endpoint?.query = nil
        endpoint?.fragment = nil
        let page = kind == .authorization ? "" : "\(kind.rawValue) "
        return "HandoffRequest(\(page)\(endpoint?.string ?? "<endpoint>")?<redacted>, redirect \(redirectURI.absoluteString))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Hides the authorization URL's query from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }

    /// Compares the URL, the redirect URI and the kind.
    public static func == (lhs: HandoffRequest, rhs: HandoffRequest) -> Bool {
        lhs.authorizationURL == rhs.authorizationURL && lhs.redirectURI == rhs.redirectURI && lhs.kind == rhs.kind
    }
}

/// Why a presenter ended a handoff without an answer.
@nonexhaustive
public enum HandoffError: Error, Sendable, Hashable {
    /// The person closed the page or the other app without choosing.
    case cancelled
    /// The page or app could not be shown.
    case presentationFailed(String)
    /// This presenter cannot show that kind of handoff (a device code, an end-session page).
    case unsupported(String)
}

extension HandoffError: CustomStringConvertible {
    /// The presenter's phrase, or `cancelled`.
    public var description: String {
        switch self {
        case .cancelled: "cancelled"
        case .presentationFailed(let why), .unsupported(let why): why
        }
    }
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

    /// Shows the code of a device sign-in (RFC 8628 §3.3): the person enters ``DeviceCodePrompt/userCode``
    /// at ``DeviceCodePrompt/verificationURI`` on another device, or opens
    /// ``DeviceCodePrompt/verificationURIComplete``.
    ///
    /// The session polls the provider meanwhile; the presenter only shows. It may return at once
    /// (the display stays until the app removes it) or suspend while the code is on screen: the
    /// session cancels the calling task when the sign-in ends for any reason. Throw
    /// ``HandoffError/cancelled`` when the person dismissed it; that ends the sign-in. The default
    /// implementation throws ``HandoffError/unsupported(_:)``, so a presenter written before
    /// device sign-in fails it with a typed error instead of hanging.
    func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError)
}

extension HandoffPresenter {
    /// Cannot show a device code: throws ``HandoffError/unsupported(_:)``.
    public func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError) {
        throw .unsupported("this presenter cannot show a device code")
    }
}
