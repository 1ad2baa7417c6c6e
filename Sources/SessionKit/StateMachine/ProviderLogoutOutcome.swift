/// How ending the provider's browser session at sign-out went (OpenID Connect RP-Initiated
/// Logout 1.0). Whatever it says, the sign-out itself is complete: the refresh token was revoked
/// (or the provider could not be told) and local credentials are wiped; nothing here undoes that.
@nonexhaustive
public enum ProviderLogoutOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The provider came back to the post-logout redirect URI with this sign-out's `state`.
    case completed
    /// The person closed the provider's page, or the app cancelled.
    case cancelled
    /// Nothing came back within `SessionConfiguration.providerLogoutTimeout`: the provider may
    /// have refused the post-logout redirect URI, or the person left the page open. The provider's
    /// browser session may remain.
    case timedOut
    /// The presenter could not show the end-session page (or cannot show that kind of page).
    case presentationFailed(String)
    /// A new sign-in needed the presenter before the provider came back.
    case superseded
    /// Asked for but not possible: the provider advertises no end-session endpoint, or no
    /// post-logout redirect URI is configured.
    case unavailable(String)

    /// Whether the provider's browser session may still be signed in: true unless the provider came
    /// back (``completed``). The next sign-in may then pass on its cookie without asking; an app
    /// that must prevent that asks for `prompt=login` (``AuthorizationRequestOptions``).
    public var providerSessionMayRemain: Bool {
        self != .completed
    }

    /// A short phrase, e.g. `timed out`.
    public var description: String {
        switch self {
        case .completed: "completed"
        case .cancelled: "cancelled"
        case .timedOut: "timed out"
        case .presentationFailed(let why): "presentation failed: \(why)"
        case .superseded: "superseded by a new sign-in"
        case .unavailable(let why): "unavailable: \(why)"
        }
    }
}
