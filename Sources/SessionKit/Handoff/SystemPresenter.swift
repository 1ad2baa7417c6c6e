public import Foundation

/// The presenter for apps: the identity provider's own app when one is installed, a system browser
/// session otherwise.
///
/// Each ``present(_:)`` first offers the authorization URL as a universal link only. When an app
/// claims it (the provider's app is installed), that app shows the authorization and later opens
/// the redirect URI; `present` returns `nil` and the answer arrives through `Session.handle(_:)`.
/// When no app claims it, a ``BrowserSession`` shows the page, by default ephemeral (no cookies
/// shared with the person's browser), and its callback URL is returned. A closed browser is
/// ``HandoffError/cancelled``; every other failure is ``HandoffError/presentationFailed(_:)``.
///
/// The decisions live here and are tested on every platform; the two seams are thin system calls.
/// On Apple platforms `SystemPresenter.init(presentationAnchor:prefersEphemeralBrowserSession:)`
/// wires `UIApplication` and `ASWebAuthenticationSession`.
public struct SystemPresenter: HandoffPresenter {
    /// The app-to-app first try; `nil` skips it (macOS has no universal-link-only open).
    public let appOpener: (any UniversalLinkOpening)?
    /// The fallback browser session.
    public let browser: any BrowserSession
    /// Whether the browser session shares no cookies or website data with the person's browser.
    public let prefersEphemeralBrowserSession: Bool

    /// Creates a presenter over the two seams.
    ///
    /// - Parameters:
    ///   - appOpener: opens the authorization URL as a universal link only; `nil` to go straight to
    ///     the browser.
    ///   - browser: shows the authorization page when no app claims it.
    ///   - prefersEphemeralBrowserSession: `true` (the default, as the reference provider recommends)
    ///     for a browser session that remembers nothing.
    public init(appOpener: (any UniversalLinkOpening)?, browser: any BrowserSession, prefersEphemeralBrowserSession: Bool = true) {
        self.appOpener = appOpener
        self.browser = browser
        self.prefersEphemeralBrowserSession = prefersEphemeralBrowserSession
    }

    /// Takes the person to the provider: its app if installed (returns `nil`), else a browser
    /// session (returns the callback URL).
    public func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        // Universal links are https only; anything else would be refused without a word.
        if let appOpener, request.authorizationURL.scheme?.lowercased() == "https",
            await appOpener.openAsUniversalLink(request.authorizationURL)
        {
            // The provider's app has it now; its redirect reaches the app's URL handler.
            return nil
        }
        // A timeout or sign-out that came while the app-to-app try was answered must not raise a
        // browser for a handoff that is over.
        guard !Task.isCancelled else { throw .cancelled }
        guard let callback = BrowserSessionCallback(redirectURI: request.redirectURI) else {
            throw .presentationFailed(
                "a browser session cannot catch an \(request.redirectURI.scheme ?? "unnamed")-scheme redirect URI"
                    + " (for http://127.0.0.1 use LoopbackPresenter)")
        }
        do {
            return try await browser.authenticate(
                at: request.authorizationURL, callback: callback, ephemeral: prefersEphemeralBrowserSession)
        } catch {
            throw Self.handoffError(error)
        }
    }

    /// The handoff's word for a browser session's failure.
    static func handoffError(_ error: BrowserSessionError) -> HandoffError {
        switch error {
        case .cancelled: .cancelled
        case .noPresentationAnchor: .presentationFailed("there is no window to present the browser session from")
        case .couldNotStart: .presentationFailed("the browser session could not start")
        case .failed(let why): .presentationFailed("the browser session failed: \(why)")
        }
    }
}
