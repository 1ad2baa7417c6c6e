public import SessionKitJOSE

/// Everything a `Session` call can fail with. Safe to print: no case carries a secret.
///
/// Ask ``category`` (or ``requiresSignIn``, ``isTransient``, ``isMisuse``, ``isStorageFailure``)
/// what to do about an error; ``code`` is a stable identifier for logs and analytics.
public enum SessionError: Error, Sendable, Equatable {
    /// There is no session (sign in or restore first).
    case notSignedIn
    /// A sign-in is already waiting for the provider.
    case signInInProgress
    /// A session is already active; sign out first.
    case alreadySignedIn
    /// Sign-out is waiting for the provider's confirmation; no token is handed out meanwhile.
    case signOutInProgress
    /// Account deletion is waiting for the provider's confirmation; no token is handed out meanwhile.
    case accountDeletionInProgress
    /// The calling task was cancelled, or the operation was superseded by the app.
    case cancelled
    /// The handoff got no answer before its timeout.
    case handoffTimedOut
    /// The person or the provider declined the authorization (`error=` in the callback).
    case authorizationDenied(String)
    /// The presenter could not show the authorization page.
    case presentationFailed(String)
    /// The callback URL did not belong to the pending handoff.
    case callbackRejected(String)
    /// The returned id_token failed verification.
    case verificationFailed(IDTokenError)
    /// The provider could not be reached or answered with an error.
    case provider(ProviderError)
    /// The provider refused the refresh token (`invalid_grant`); the session ended.
    case refreshTokenRejected
    /// The provider refused the disconnect (401/403); credentials are kept.
    case accountDeletionRefused(status: Int)
    /// The credential store failed.
    case storage(CredentialStoreError)
    /// The provider profile does not offer this operation, or the presenter cannot show it (a
    /// device code), or the session cannot do it (a refresh without a refresh token).
    case unsupported(String)
    /// The store holds a session written for another issuer or client; it was not restored.
    case storedSessionForeign(String)
    /// The store now holds another account's session (another `sub`, no merge claim linking it to
    /// this one): this session ended rather than adopt it.
    case anotherAccountInStore
    /// The system's cryptographically secure random source failed, so no sign-in parameters could be made.
    case randomSourceFailed
    /// The sign-in's request options break a rule (a reserved extra parameter, `prompt=none` with
    /// another value, …); nothing was sent.
    case invalidRequestOptions(AuthorizationRequestOptionsError)
    /// The access token expired and the provider issued no refresh token with it: the session
    /// ended; sign in again (ask for `offline_access` to get a refresh token from most providers).
    case sessionExpired
    /// The device code of a device sign-in expired before the person approved it.
    case deviceCodeExpired
    /// The UserInfo answer was refused: not a JSON object, no `sub`, or another person's `sub`
    /// (OpenID Connect Core §5.3.2). Nothing of it was used.
    case userInfoRejected(UserInfoError)
    /// The session stopped after finding itself inconsistent (a bug in SessionKit); its stored
    /// credentials are untouched. Make a new session (it restores them).
    case sessionFailed
    /// The session was shut down (`Session.shutdown()`); make a new one to go on.
    case shutDown
    /// A guest session's bootstrap (its start, or the renewal of its key) gave no access key:
    /// the provider refused the device secret also after one fresh bootstrap
    /// (``AnonymousBootstrapError/invalidDeviceSecret``), refused the request, was unavailable, or
    /// the guest credential could not be kept.
    case guestBootstrapFailed(AnonymousBootstrapError)
}
