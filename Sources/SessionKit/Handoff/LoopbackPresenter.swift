public import Foundation

/// The presenter for command-line tools, desktop apps and Linux: the system browser, with the
/// answer caught on a loopback port (RFC 8252 §7.3).
///
/// Each ``present(_:)`` binds 127.0.0.1 (on ``port``, or an ephemeral port when it is 0), makes
/// `http://127.0.0.1:PORT/<path>` the redirect URI of that attempt, opens the authorization URL
/// through ``opener``, and waits for the browser's redirect. Exactly one request is accepted: a
/// `GET` of the callback path, with `Host: 127.0.0.1:PORT`, no repeated parameter, this attempt's
/// `state`, and a `code` or an `error`. It is answered with ``completionPage`` and its URL is
/// returned to the session.
///
/// At sign-out the same presenter shows the provider's end-session page (OpenID Connect
/// RP-Initiated Logout 1.0): the per-attempt URI goes into `post_logout_redirect_uri` (§2), and
/// the return carries only `state` (§3), which must be this attempt's. It is answered with
/// ``signOutPage``. Anything else is refused (404 for another path, 405 for another
/// method, 400 for a malformed, foreign or forged request, 431 for an oversized head) and
/// listening goes on, so another local process cannot end or hijack the handoff. Every socket is
/// closed when the handoff ends: on the callback, and when the session cancels the presenting
/// task (timeout, cancel, sign-out), as RFC 8252 §8.3 asks.
///
/// The provider must accept a loopback redirect URI on any port, as RFC 8252 §7.3 requires of it;
/// register `http://127.0.0.1/<path>` there and configure that as the redirect URI, and the
/// post-logout redirect URI the same way. django-oauth-toolkit 3.4 follows the RFC for both; most
/// providers match the registered port exactly: register `http://127.0.0.1:N/<path>` for both
/// there and pass ``port``. A provider that refuses the post-logout URI never sends the browser
/// back; the session ends that wait after `SessionConfiguration.providerLogoutTimeout`.
///
/// ```swift
/// let provider = try await ProviderConfiguration.discover(
///     issuer: "https://id.example.com", clientID: "cli",
///     redirectURI: URL(string: "http://127.0.0.1/callback")!, transport: transport)
/// let presenter = LoopbackPresenter()          // opens the system browser, or prints the URL
/// ```
public struct LoopbackPresenter: HandoffPresenter {
    /// The page the browser shows once the answer arrived; it repeats nothing from the request.
    public static let defaultCompletionPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Sign-in</title></head>
        <body style="font-family: sans-serif; margin: 3em">
        <p>The sign-in answer reached the app. You can close this window.</p>
        </body></html>

        """

    /// The page the browser shows once the provider's end-session page came back.
    public static let defaultSignOutPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Signed out</title></head>
        <body style="font-family: sans-serif; margin: 3em">
        <p>You are signed out. You can close this window.</p>
        </body></html>

        """

    /// The port to listen on; 0 (the default) lets the system pick a free one for each attempt.
    public let port: UInt16
    /// The callback path; `nil` (the default) takes the configured redirect URI's path.
    public let callbackPath: String?
    /// Opens the authorization URL in the person's browser.
    public let opener: BrowserOpener
    /// The HTML the browser shows after the callback.
    public let completionPage: String
    /// The HTML the browser shows after the return from the end-session page.
    public let signOutPage: String
    /// Where a device sign-in's code is shown (``presentDeviceCode(_:)``): standard error by default.
    public let deviceCodeOutput: @Sendable (String) -> Void

    /// Creates a loopback presenter.
    ///
    /// - Parameters:
    ///   - port: a fixed port, for providers that insist on one; 0 for an ephemeral port.
    ///   - callbackPath: the path of the per-attempt redirect URI; by default the configured one's.
    ///   - opener: how the browser is opened; ``BrowserOpener/system`` by default.
    ///   - completionPage: the HTML shown once the callback arrived.
    ///   - signOutPage: the HTML shown once the end-session page came back.
    ///   - deviceCodeOutput: where a device sign-in's code and address are written; `nil` (the
    ///     default) for standard error, so a command's own output stays clean.
    public init(
        port: UInt16 = 0, callbackPath: String? = nil, opener: BrowserOpener = .system, completionPage: String = defaultCompletionPage,
        signOutPage: String = defaultSignOutPage, deviceCodeOutput: (@Sendable (String) -> Void)? = nil
    ) {
        self.port = port
        self.callbackPath = callbackPath
        self.opener = opener
        self.completionPage = completionPage
        self.signOutPage = signOutPage
        self.deviceCodeOutput = deviceCodeOutput ?? BrowserOpener.standardError
    }

    /// Shows a device sign-in's code in the terminal (RFC 8628 §3.3): the address to open on any
    /// device, the code to enter there, and the address with the code in it when the provider
    /// gave one. Returns at once; the text stays on screen while the session polls.
    ///
    /// This is the way to sign in from a machine no browser can come back to (a server over SSH):
    /// call `Session.signInWithDeviceCode()` instead of `signIn()`.
    public func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError) {
        deviceCodeOutput(Self.deviceCodeText(for: prompt))
    }

    /// The text ``presentDeviceCode(_:)`` writes.
    static func deviceCodeText(for prompt: DeviceCodePrompt) -> String {
        var text = "To sign in, open this page on any device:\n\n    \(prompt.verificationURI.absoluteString)\n\n"
        text += "and enter the code\n\n    \(prompt.userCode)\n\n"
        if let complete = prompt.verificationURIComplete {
            text += "(or open \(complete.absoluteString), which carries the code)\n\n"
        }
        return text
    }

    /// Whether `redirectURI` is a loopback IP redirect this presenter can serve: `http` on 127.0.0.1.
    public static func canServe(_ redirectURI: URL) -> Bool {
        redirectURI.scheme?.lowercased() == "http" && redirectURI.host == "127.0.0.1"
    }

    /// Listens, opens the browser, and returns the callback URL the browser was redirected to: the
    /// authorization callback, or for an end-session page (``HandoffRequest/Kind/endSession``) the
    /// return to the post-logout redirect URI.
    ///
    /// Throws ``HandoffError/cancelled`` when the session ends the handoff first, and
    /// ``HandoffError/presentationFailed(_:)`` when the port cannot be bound or the opener fails.
    public func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        let path = callbackPath ?? Self.path(of: request.redirectURI)
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw .presentationFailed("the callback path must start with / and hold no query or fragment")
        }
        let listener = try LoopbackListener(port: port)
        defer { listener.close() }
        let origin = "http://127.0.0.1:\(listener.port)"
        guard let redirectURI = URL(string: origin + path) else {
            throw .presentationFailed("the callback path does not make a URL")
        }
        let authorizationURL = request.authorizationURL(redirectingTo: redirectURI)
        let endsSession = request.kind == .endSession
        // A request the session did not make (or a configured redirect URI of another kind) keeps
        // its redirect URI, and the browser would then be sent somewhere nobody listens.
        let redirectField = endsSession ? "post_logout_redirect_uri" : "redirect_uri"
        guard Self.field(redirectField, in: authorizationURL) == redirectURI.absoluteString else {
            let what = endsSession ? "end-session" : "authorization"
            throw .presentationFailed("the \(what) request cannot be redirected to \(origin)")
        }
        let state = Self.field("state", in: authorizationURL)
        // A logout return without a state to check could be anyone's (RP-Initiated Logout §3).
        if endsSession, state == nil { throw .presentationFailed("the end-session request carries no state") }
        let page = LoopbackResponse.page(endsSession ? signOutPage : completionPage)
        // A browser sends the port in Host unless it is the default one.
        let hosts: Set<String> = listener.port == 80 ? ["127.0.0.1:80", "127.0.0.1"] : ["127.0.0.1:\(listener.port)"]
        let kind = request.kind
        listener.start { head in Self.answer(head, hosts: hosts, path: path, state: state, kind: kind, page: page) }
        // A handoff that ended while the port was bound must not raise a browser.
        guard !Task.isCancelled else {
            await listener.stop()
            throw .cancelled
        }
        do {
            try await opener.open(authorizationURL)
        } catch {
            await listener.stop()
            throw error
        }
        let head = try await listener.callback()
        guard let callback = URL(string: origin + head.target) else {
            // The listener accepts only targets that make a URL.
            throw .presentationFailed("the callback request did not make a URL")
        }
        return callback
    }

    /// Judges one request head: the callback of this attempt, or a refusal. An authorization
    /// callback carries a `code` or an `error`; an end-session return carries only the `state`.
    static func answer(
        _ head: LoopbackRequestHead, hosts: Set<String>, path: String, state: String?, kind: HandoffRequest.Kind = .authorization,
        page: [UInt8]
    ) -> LoopbackListener.Answer {
        // A page elsewhere that resolves its own name to 127.0.0.1 (DNS rebinding) sends its own Host.
        guard let host = head.host?.lowercased(), hosts.contains(host) else { return .refuse(LoopbackResponse.refusal(400)) }
        guard head.path == path else { return .refuse(LoopbackResponse.refusal(404)) }
        guard head.method == "GET" else { return .refuse(LoopbackResponse.refusal(405)) }
        guard let query = head.query, let fields = QueryFields(query), URL(string: "http://\(host)\(head.target)") != nil else {
            return .refuse(LoopbackResponse.refusal(400))
        }
        switch kind {
        case .authorization:
            guard fields.values["code"] != nil || fields.values["error"] != nil else { return .refuse(LoopbackResponse.refusal(400)) }
        case .endSession:
            guard fields.values["state"] != nil else { return .refuse(LoopbackResponse.refusal(400)) }
        }
        // Without this attempt's state a local process could end the handoff with a forged answer.
        if let state, !Self.constantTimeEqual(fields.values["state"] ?? "", state) {
            return .refuse(LoopbackResponse.refusal(400))
        }
        return .accept(page)
    }

    private static func path(of redirectURI: URL) -> String {
        let path = URLComponents(url: redirectURI, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        return path.isEmpty ? "/" : path
    }

    private static func field(_ name: String, in url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery.flatMap(QueryFields.init)?.values[name]
    }

    private static func constantTimeEqual(_ left: String, _ right: String) -> Bool {
        let (left, right) = (Array(left.utf8), Array(right.utf8))
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

/// A query's fields, refusing repeated names (RFC 6749 §3.1) and undecodable escapes.
private struct QueryFields {
    var values: [String: String] = [:]

    init?(_ query: some StringProtocol) {
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : ""),
                values.updateValue(value, forKey: name) == nil
            else { return nil }
        }
    }

    private static func decode(_ text: some StringProtocol) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
