/// A failure worth showing to the person, as ``SessionModel`` last saw it. Safe to print: no case
/// carries a secret.
///
/// Closed by design: a failure comes from a call the app made or from the session on its own.
public enum SessionModelError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A call made through the model was refused without a change of stage (`notSignedIn`,
    /// `signInInProgress`, …); failures that change the stage arrive as ``session(_:)``.
    case call(SessionError)
    /// The session reported a failure on its own: the reason of the transition it made.
    case session(TransitionReason)

    /// Whether a transition's reason is a failure a person should hear about: a sign-in that did
    /// not complete, a session that ended or could not be kept, a sign-out or deletion the
    /// provider did not confirm. A cancelled handoff (the person's own choice) and transient
    /// failures the session retries on its own are not.
    public static func isWorthShowing(_ reason: TransitionReason) -> Bool {
        switch reason.kind {
        case .authorizationDenied, .callbackRejected, .exchangeFailed, .verificationFailed, .handoffTimedOut, .presentationFailed,
            .refreshRejected, .storageFailed, .signedOutLocallyOnly, .accountDeletionRefused, .accountDeletionUnavailable,
            .storedSessionNotRestored, .dpopKeyUnavailable, .anotherAccountInStore, .sessionExpired, .deviceCodeExpired,
            .deviceSignInFailed,
            .internalFailure, .guestBootstrapFailed:
            true
        case .current, .signInRequested, .callbackReceived, .verified, .refreshed, .refreshedIdentityKept, .handoffCancelled, .tokenDue,
            .refreshRequested,
            .restoring, .nothingStored, .refreshFailedTransiently, .notJournaled, .signOutRequested, .accountDeletionRequested,
            .resumingPendingOperation, .retrying, .revocationConfirmed, .accountDeleted, .revocationDeferred, .restored, .restoredDue,
            .deviceSignInRequested, .deviceCodeIssued, .devicePollDeferred, .deviceSignInApproved, .identifiedByUserInfo,
            .providerSessionEnded, .shutDown, .guestSessionRequested, .guestStarted, .guestKeyRenewed, .guestSignOutRequested,
            .guestSessionEnded:
            false
        case .providerSessionNotEnded:
            // Told through the provider-logout event, which says whether the person chose it.
            false
        }
    }

    /// One readable phrase.
    public var description: String {
        switch self {
        case .call(let error): "\(error)"
        case .session(let reason): reason.description
        }
    }
}
