public import Foundation
public import SessionKitCore

/// One RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): what the end-session URL
/// carries, and what the return to the app must echo.
///
/// After sign-out has revoked at the provider and wiped locally, the presenter opens
/// ``ProviderClient/endSessionURL(for:)`` so the provider also ends its browser session (the next
/// sign-in then asks for credentials again instead of reusing the SSO cookie). The provider sends
/// the browser back to ``postLogoutRedirectURI`` with `state`; ``match(_:)`` tells that return
/// from any other URL. Every value that is a token or a secret is a `Secret`.
public struct EndSessionRequest: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// `id_token_hint` (§2, RECOMMENDED): the id_token of the session being ended, so the provider
    /// knows whose session it is and may skip asking.
    public var idTokenHint: Secret?
    /// `logout_hint`: which account to sign out, when the provider has several (an e-mail address, a user name).
    public var logoutHint: String?
    /// Whether to send `client_id`, which lets the provider check `post_logout_redirect_uri`
    /// without (or against) the hint.
    public var includesClientID: Bool
    /// `post_logout_redirect_uri`: where the provider sends the browser afterwards; it must be
    /// registered for the client. `nil` asks for no return.
    public var postLogoutRedirectURI: URL?
    /// `state`: echoed on the return, which is matched against it; required with a redirect URI.
    public var state: Secret?
    /// `ui_locales`: BCP 47 tags for the provider's logout pages, in order of preference.
    public var uiLocales: [String]

    /// A request from its values.
    ///
    /// - Throws: ``EndSessionRequestError/stateRequired`` when a `postLogoutRedirectURI` is given
    ///   without a `state` (the return could not be told from a forged one),
    ///   ``EndSessionRequestError/emptyState`` for an empty `state`.
    public init(
        idTokenHint: Secret?, postLogoutRedirectURI: URL? = nil, state: Secret? = nil, logoutHint: String? = nil,
        uiLocales: [String] = [], includesClientID: Bool = true
    ) throws(EndSessionRequestError) {
        if postLogoutRedirectURI != nil, state == nil { throw .stateRequired }
        if state?.value.isEmpty == true { throw .emptyState }
        self.idTokenHint = idTokenHint
        self.logoutHint = logoutHint
        self.includesClientID = includesClientID
        self.postLogoutRedirectURI = postLogoutRedirectURI
        self.state = state
        self.uiLocales = uiLocales
    }

    /// The query parameters, in the order §2 lists them.
    func parameters(clientID: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        if let idTokenHint { fields.append(("id_token_hint", idTokenHint.value)) }
        if let logoutHint { fields.append(("logout_hint", logoutHint)) }
        if includesClientID { fields.append(("client_id", clientID)) }
        if let postLogoutRedirectURI { fields.append(("post_logout_redirect_uri", postLogoutRedirectURI.absoluteString)) }
        if let state { fields.append(("state", state.value)) }
        if !uiLocales.isEmpty { fields.append(("ui_locales", uiLocales.joined(separator: " "))) }
        return fields
    }

    /// The redirect URI and the options; the hint token and `state` redacted, the logout hint
    /// only as present.
    public var description: String {
        "EndSessionRequest(idTokenHint: \(idTokenHint == nil ? "none" : "<redacted>"), "
            + "logoutHint: \(logoutHint == nil ? "none" : "<present>"), includesClientID: \(includesClientID), "
            + "postLogoutRedirectURI: \(postLogoutRedirectURI?.absoluteString ?? "none"), "
            + "state: \(state == nil ? "none" : "<redacted>"), uiLocales: \(uiLocales))"
    }

    /// Shows what ``description`` shows.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "hasIDTokenHint": idTokenHint != nil, "hasLogoutHint": logoutHint != nil, "includesClientID": includesClientID,
                "postLogoutRedirectURI": postLogoutRedirectURI as Any, "hasState": state != nil, "uiLocales": uiLocales,
            ], displayStyle: .struct)
    }
}
