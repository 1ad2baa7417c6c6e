import Foundation

/// What a presenter is asked to show: the provider's authorization page.
public struct HandoffRequest: Sendable, Equatable {
    /// The authorization URL, with PKCE challenge, state and nonce.
    public var authorizationURL: URL
    /// The redirect URI the answer will come back to.
    public var redirectURI: URL

    /// Creates a request.
    public init(authorizationURL: URL, redirectURI: URL) {
        self.authorizationURL = authorizationURL
        self.redirectURI = redirectURI
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
    /// Returns the callback URL when the presenter received it itself (a browser session), or
    /// `nil` when the answer will arrive through `Session.handle(_:)` (an app-to-app open). Throws
    /// ``HandoffError/cancelled`` when the person closed it. The session cancels the calling task
    /// when the handoff ends for any other reason (timeout, sign-out).
    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL?
}
