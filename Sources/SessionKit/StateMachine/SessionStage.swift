import Foundation

/// The seven stages of a session's life.
///
/// Closed by design: a session is in exactly one of these seven, and a later version will not add
/// an eighth, so an app may switch over them without a `default:`. (The public enums that may gain
/// cases, such as ``SessionEvent`` and the error details, are `@nonexhaustive`: a `switch` over one
/// outside SessionKit needs an `@unknown default:`.)
///
/// ```
/// signedOut ──signIn()──▶ handoff ──callback──▶ verifying ──verified──▶ active
///     ▲                      │ timeout/cancel       │ rejected            │  ▲
///     ├──────────────────────┴──────────────────────┘                     ▼  │ verified
///     │                                                              refreshing
///     ├──── confirmed ──── revoking ◀──── signOut() ──── active/refreshing
///     └──── confirmed ──── disconnecting ◀── deleteAccount() ── active/refreshing
/// ```
///
/// A guest session lives in the same stages: `startGuestSession()` goes from `signedOut` through
/// `verifying` (the device bootstrap) to `active`; its key is renewed in `refreshing`; a sign-in from
/// it returns to it from `handoff` or `verifying` when it fails; its sign-out waits in `revoking`
/// (its deletion in `disconnecting`) for the local wipe only.
///
/// The full transition table is `SessionTransitionTable`; `Diagrams/stages.mmd` is generated from it.
public enum SessionStage: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// No session. The app may call `signIn()`, `startGuestSession()` or `restore()`.
    case signedOut
    /// The person is at the identity provider; the session waits for the callback URL.
    case handoff
    /// The authorization code is being exchanged and the id_token verified, or a guest session's
    /// first device bootstrap is in flight.
    case verifying
    /// A verified session; access tokens are handed out.
    case active
    /// A refresh (for a guest session, a renewal of its key) is in flight; callers asking for a
    /// token wait for its verified result.
    case refreshing
    /// Sign-out: the refresh token is being revoked at the provider before the local wipe.
    case revoking
    /// Account deletion: the app is being disconnected at the provider before the local wipe.
    case disconnecting

    /// The stage's name, as in the diagrams.
    public var description: String { rawValue }
}
