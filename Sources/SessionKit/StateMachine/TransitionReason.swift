import Foundation

/// Why a session changed stage. Carries no secret, so it is safe to print.
public enum TransitionReason: Sendable, Hashable, CustomStringConvertible {
    /// The first event on a transitions stream: the stage the session is in right now.
    case current
    /// The app called `signIn()`.
    case signInRequested
    /// The callback URL arrived; the code is being exchanged.
    case callbackReceived
    /// The tokens were verified (sign-in, refresh or restore).
    case verified(subject: String)
    /// A refresh was verified and handed to the callers waiting for it.
    case refreshed(callers: Int)
    /// A refresh answer without an id_token was accepted: the identity is the one verified before.
    case refreshedIdentityKept(callers: Int)
    /// The handoff did not answer in time.
    case handoffTimedOut
    /// The person closed the handoff without choosing, or the app cancelled it.
    case handoffCancelled
    /// The provider answered the authorization with an error (such as `access_denied`).
    case authorizationDenied(error: String)
    /// The callback did not belong to this handoff (`state` or `iss` mismatch).
    case callbackRejected(String)
    /// The code exchange failed at the provider.
    case exchangeFailed(String)
    /// The returned id_token failed verification; the code is DESIGN.md's stable error code.
    case verificationFailed(code: String)
    /// The access token is due within the lead time.
    case tokenDue(inSeconds: Int, callers: Int)
    /// The app asked for a refresh explicitly.
    case refreshRequested
    /// A cold launch found a stored refresh token.
    case restoring
    /// A cold launch found a verified session and signed in from the store, without the network.
    case restored(subject: String)
    /// A cold launch signed in from the store and refreshes its access token, due in `inSeconds`.
    case restoredDue(subject: String, inSeconds: Int)
    /// A cold launch found a session written for another issuer or client and left it alone.
    case storedSessionNotRestored(String)
    /// The store now holds another account's session (another `sub`, no merge claim linking them).
    case anotherAccountInStore
    /// Nothing was stored at cold launch.
    case nothingStored
    /// A refresh failed in a way that may pass (network, 5xx, 429); the session keeps its tokens.
    case refreshFailedTransiently(String)
    /// The provider refused the refresh token: the session is over. Carries what it answered
    /// (status and error code, or "empty body"), never a value.
    case refreshRejected(String)
    /// The credential store failed; the session cannot keep its promises durably.
    case storageFailed(String)
    /// The store was read but a sign-out or deletion could not be journaled in it: the operation
    /// goes on, server first, but will not resume after a relaunch.
    case notJournaled(String)
    /// The app called `signOut()`.
    case signOutRequested
    /// The app called `deleteAccount()`.
    case accountDeletionRequested
    /// A journaled sign-out or deletion found at cold launch is being completed.
    case resumingPendingOperation
    /// A server call failed transiently and is retried after a delay.
    case retrying(attempt: Int, afterSeconds: Double, because: String)
    /// The provider confirmed the revocation; local credentials are wiped.
    case revocationConfirmed
    /// The provider could not be told (no revocation endpoint, or it refused); local credentials are wiped.
    case signedOutLocallyOnly(String)
    /// The provider confirmed the disconnect; local credentials and the device key are wiped.
    case accountDeleted
    /// The provider refused the disconnect (401/403); the credentials are kept.
    case accountDeletionRefused(status: Int)
    /// A new sign-in started while an old refresh token still waits to be revoked.
    case revocationDeferred
    /// The presenter could not show the authorization page.
    case presentationFailed(String)
    /// The provider offers no way to delete the account's connection (or could not be asked); credentials are kept.
    case accountDeletionUnavailable(String)
    /// The access token expired and there is no refresh token: the session ended; sign in again.
    case sessionExpired
    /// The app called `signInWithDeviceCode()`.
    case deviceSignInRequested
    /// The provider issued a device code; the person has `expiresInSeconds` to approve it elsewhere.
    case deviceCodeIssued(expiresInSeconds: Int)
    /// The provider asked for slower polling (`slow_down`), or a poll failed in a way that may pass;
    /// the next poll waits `afterSeconds`.
    case devicePollDeferred(afterSeconds: Double, because: String)
    /// The person approved the device sign-in; its tokens are being verified.
    case deviceSignInApproved
    /// The device code expired before the person approved it.
    case deviceCodeExpired
    /// A device sign-in brought no id_token; the UserInfo answer to its access token named the person.
    case identifiedByUserInfo(subject: String)
    /// The provider refused the device sign-in (its code request or a poll) for a reason polling cannot fix.
    case deviceSignInFailed(String)
    /// The provider ended its browser session and came back.
    case providerSessionEnded
    /// Signed out (revoked or not, wiped), but the provider's browser session was not ended.
    case providerSessionNotEnded(String)
    /// The session found itself in an inconsistent state (a bug in SessionKit) and stopped; every
    /// call now fails with `SessionError.sessionFailed`. Make a new session.
    case internalFailure
    /// The session was shut down (`Session.shutdown()`); its work has ended.
    case shutDown
    /// The app called `startGuestSession()`; the device bootstraps a guest.
    case guestSessionRequested
    /// A guest session began: the provider issued an access key for the anonymous user `subject`.
    /// `startedOver`: the stored device secret was refused and the device bootstrapped afresh, so
    /// this is a new anonymous user, not the one the device had before.
    case guestStarted(subject: String, startedOver: Bool)
    /// A guest session's key was renewed by bootstrapping again with the stored device secret.
    /// `startedOver`: the secret was refused and the fresh bootstrap made a new anonymous user.
    case guestKeyRenewed(callers: Int, startedOver: Bool)
    /// A guest bootstrap (a start or a renewal) gave no access key.
    case guestBootstrapFailed(String)
    /// The app signed a guest session out (or deleted it): nothing is sent to the provider, the
    /// guest's key and device credential are wiped.
    case guestSignOutRequested
    /// The guest session ended: its key, its device credential and the high-assurance item are
    /// wiped; the provider was not told (a device key has no revocation).
    case guestSessionEnded

    /// One readable phrase, as the walkthrough prints it.
    public var description: String {
        switch self {
        case .current: "current stage"
        case .signInRequested: "sign-in requested"
        case .callbackReceived: "callback received; exchanging code"
        case .verified(let subject): "id_token verified; sub \(subject)"
        case .refreshed(let callers): "refresh verified; \(callers) caller\(callers == 1 ? "" : "s") served"
        case .refreshedIdentityKept(let callers):
            "refreshed without an id_token, identity kept; \(callers) caller\(callers == 1 ? "" : "s") served"
        case .handoffTimedOut: "handoff timed out"
        case .handoffCancelled: "handoff cancelled"
        case .authorizationDenied(let error): "authorization denied: \(error)"
        case .callbackRejected(let why): "callback rejected: \(why)"
        case .exchangeFailed(let why): "code exchange failed: \(why)"
        case .verificationFailed(let code): "id_token rejected: \(code)"
        case .tokenDue(let seconds, let callers):
            "token due in \(seconds)s; \(callers) caller\(callers == 1 ? "" : "s") waiting"
        case .refreshRequested: "refresh requested"
        case .restoring: "restoring from stored refresh token"
        case .restored(let subject): "restored from the store; sub \(subject)"
        case .restoredDue(let subject, let seconds): "restored from the store; sub \(subject); token due in \(seconds)s"
        case .storedSessionNotRestored(let why): "stored session not restored: \(why)"
        case .anotherAccountInStore: "the store holds another account's session"
        case .nothingStored: "nothing stored"
        case .refreshFailedTransiently(let why): "refresh failed, tokens kept: \(why)"
        case .refreshRejected(let why): "refresh rejected: \(why)"
        case .storageFailed(let why): "credential store failed: \(why)"
        case .notJournaled(let why): "not journaled (\(why)); going on, but a relaunch will not resume it"
        case .signOutRequested: "sign-out requested; revoking at the provider"
        case .accountDeletionRequested: "account deletion requested; disconnecting at the provider"
        case .resumingPendingOperation: "resuming journaled operation"
        case .retrying(let attempt, let after, let why):
            "attempt \(attempt) failed (\(why)); retrying in \(Self.format(after))s"
        case .revocationConfirmed: "revocation confirmed; local credentials wiped"
        case .signedOutLocallyOnly(let why): "signed out locally; provider not told: \(why)"
        case .accountDeleted: "disconnect confirmed; credentials and device key wiped"
        case .accountDeletionRefused(let status): "disconnect refused (\(status)); credentials kept"
        case .revocationDeferred: "new sign-in; old refresh token revoked in the background"
        case .presentationFailed(let why): "handoff could not be shown: \(why)"
        case .accountDeletionUnavailable(let why): "account deletion unavailable (\(why)); credentials kept"
        case .sessionExpired: "access token expired; no refresh token: sign in again"
        case .deviceSignInRequested: "device sign-in requested"
        case .deviceCodeIssued(let seconds): "device code issued; expires in \(seconds)s"
        case .devicePollDeferred(let after, let why): "device poll deferred (\(why)); next poll in \(Self.format(after))s"
        case .deviceSignInApproved: "device sign-in approved; verifying tokens"
        case .deviceCodeExpired: "device code expired"
        case .identifiedByUserInfo(let subject): "no id_token; UserInfo names sub \(subject)"
        case .deviceSignInFailed(let why): "device sign-in failed: \(why)"
        case .providerSessionEnded: "provider session ended"
        case .providerSessionNotEnded(let why): "signed out; provider session not ended: \(why)"
        case .internalFailure: "internal inconsistency; session stopped"
        case .shutDown: "session shut down"
        case .guestSessionRequested: "guest session requested; bootstrapping the device"
        case .guestStarted(let subject, let startedOver):
            "guest key issued; anonymous user \(subject)\(startedOver ? " (a new anonymous user: the stored device secret was refused)" : "")"
        case .guestKeyRenewed(let callers, let startedOver):
            "guest key renewed; \(callers) caller\(callers == 1 ? "" : "s") served"
                + (startedOver ? "; a new anonymous user (the stored device secret was refused)" : "")
        case .guestBootstrapFailed(let why): "guest bootstrap failed: \(why)"
        case .guestSignOutRequested: "guest sign-out requested; nothing to revoke at the provider"
        case .guestSessionEnded: "guest session ended; key and device credential wiped"
        }
    }

    private static func format(_ seconds: Double) -> String {
        let rounded = (seconds * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
