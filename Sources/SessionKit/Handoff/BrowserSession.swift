public import Foundation

/// Shows the authorization page in a browser owned by the system and returns the callback URL it
/// was redirected to.
///
/// This is the fallback of ``SystemPresenter`` when no app claims the authorization URL. On Apple
/// platforms the implementation is `ASWebAuthenticationSession`; tests use a fake.
public protocol BrowserSession: Sendable {
    /// Opens `url` and returns the first URL matching `callback` that the page navigates to.
    ///
    /// - Parameters:
    ///   - url: the authorization URL.
    ///   - callback: which navigation ends the session.
    ///   - ephemeral: `true` to share no cookies or website data with the person's browser.
    /// - Throws: ``BrowserSessionError/cancelled`` when the person closed it or the calling task was
    ///   cancelled; another case when it could not be shown.
    func authenticate(at url: URL, callback: BrowserSessionCallback, ephemeral: Bool) async throws(BrowserSessionError) -> URL
}
