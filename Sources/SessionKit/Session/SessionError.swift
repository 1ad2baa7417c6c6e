import SessionKitJOSE

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
    /// The provider profile does not offer this operation.
    case unsupported(String)
    /// The system's cryptographically secure random source failed, so no sign-in parameters could be made.
    case randomSourceFailed
}
