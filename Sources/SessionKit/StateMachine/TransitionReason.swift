package import SessionKitCore
package import SessionKitJOSE

/// Why a session changed stage. Carries no secret, so it is safe to print.
/// Why a session changed stage. Carries no secret, so it is safe to print.
///
/// ``code`` says which reason it is and stays the same across versions: compare it with the
/// constants (`reason.code == .refreshed`), or switch over it with a `default:` branch. The typed
/// details (``subject``, ``callers``, ``error`` …) say more where there is more to say, and
/// ``description`` is one readable phrase, as the walkthrough prints it.
///
/// A struct rather than an enum, so that a later version can add reasons without breaking an
/// app's exhaustive `switch`.
public struct TransitionReason: Sendable, Hashable, CustomStringConvertible {
    /// Which reason this is, with its typed payload.
    package let kind: Kind

    package init(kind: Kind) {
        self.kind = kind
    }
}

extension TransitionReason {
    /// The reasons, one case each; the payloads are the typed details.
    package enum Kind: Sendable, Hashable {
        case current
        case signInRequested
        case callbackReceived
        case verified(subject: String)
        case refreshed(callers: Int)
        case refreshedIdentityKept(callers: Int)
        case handoffTimedOut
        case handoffCancelled
        case authorizationDenied(error: String)
        case callbackRejected(CallbackRefusal)
        case exchangeFailed(SessionError)
        case verificationFailed(IDTokenError)
        case tokenDue(inSeconds: Int, callers: Int)
        case refreshRequested
        case restoring
        case restored(subject: String)
        case restoredDue(subject: String, inSeconds: Int)
        case storedSessionNotRestored(StoredSessionMismatch)
        case dpopKeyUnavailable(DPoPKeyLoss)
        case anotherAccountInStore
        case nothingStored
        case refreshFailedTransiently(SessionError)
        case refreshRejected(ProviderError?)
        case storageFailed(CredentialStoreError)
        case notJournaled(CredentialStoreError)
        case signOutRequested
        case accountDeletionRequested
        case resumingPendingOperation
        case retrying(attempt: Int, afterSeconds: Double, because: SessionError)
        case revocationConfirmed
        case signedOutLocallyOnly(SessionError)
        case accountDeleted
        case accountDeletionRefused(status: Int)
        case revocationDeferred
        case presentationFailed(HandoffError)
        case accountDeletionUnavailable(UnsupportedOperation)
        case sessionExpired
        case deviceSignInRequested
        case deviceCodeIssued(expiresInSeconds: Int)
        case devicePollDeferred(afterSeconds: Double, because: String)
        case deviceSignInApproved
        case deviceCodeExpired
        case identifiedByUserInfo(subject: String)
        case deviceSignInFailed(SessionError)
        case providerSessionEnded
        case providerSessionNotEnded(ProviderLogoutOutcome)
        case internalFailure
        case shutDown
        case guestSessionRequested
        case guestStarted(subject: String, startedOver: Bool)
        case guestKeyRenewed(callers: Int, startedOver: Bool)
        case guestBootstrapFailed(SessionError)
        case guestSignOutRequested
        case guestSessionEnded
    }
}

extension TransitionReason {
    package static let current = TransitionReason(kind: .current)
    package static let signInRequested = TransitionReason(kind: .signInRequested)
    package static let callbackReceived = TransitionReason(kind: .callbackReceived)
    package static func verified(subject: String) -> TransitionReason { TransitionReason(kind: .verified(subject: subject)) }
    package static func refreshed(callers: Int) -> TransitionReason { TransitionReason(kind: .refreshed(callers: callers)) }
    package static func refreshedIdentityKept(callers: Int) -> TransitionReason {
        TransitionReason(kind: .refreshedIdentityKept(callers: callers))
    }
    package static let handoffTimedOut = TransitionReason(kind: .handoffTimedOut)
    package static let handoffCancelled = TransitionReason(kind: .handoffCancelled)
    package static func authorizationDenied(error: String) -> TransitionReason {
        TransitionReason(kind: .authorizationDenied(error: error))
    }
    package static func callbackRejected(_ detail: CallbackRefusal) -> TransitionReason {
        TransitionReason(kind: .callbackRejected(detail))
    }
    package static func exchangeFailed(_ detail: SessionError) -> TransitionReason { TransitionReason(kind: .exchangeFailed(detail)) }
    package static func verificationFailed(_ detail: IDTokenError) -> TransitionReason {
        TransitionReason(kind: .verificationFailed(detail))
    }
    package static func tokenDue(inSeconds: Int, callers: Int) -> TransitionReason {
        TransitionReason(kind: .tokenDue(inSeconds: inSeconds, callers: callers))
    }
    package static let refreshRequested = TransitionReason(kind: .refreshRequested)
    package static let restoring = TransitionReason(kind: .restoring)
    package static func restored(subject: String) -> TransitionReason { TransitionReason(kind: .restored(subject: subject)) }
    package static func restoredDue(subject: String, inSeconds: Int) -> TransitionReason {
        TransitionReason(kind: .restoredDue(subject: subject, inSeconds: inSeconds))
    }
    package static func storedSessionNotRestored(_ detail: StoredSessionMismatch) -> TransitionReason {
        TransitionReason(kind: .storedSessionNotRestored(detail))
    }
    package static func dpopKeyUnavailable(_ loss: DPoPKeyLoss) -> TransitionReason {
        TransitionReason(kind: .dpopKeyUnavailable(loss))
    }
    package static let anotherAccountInStore = TransitionReason(kind: .anotherAccountInStore)
    package static let nothingStored = TransitionReason(kind: .nothingStored)
    package static func refreshFailedTransiently(_ detail: SessionError) -> TransitionReason {
        TransitionReason(kind: .refreshFailedTransiently(detail))
    }
    package static func refreshRejected(_ detail: ProviderError?) -> TransitionReason { TransitionReason(kind: .refreshRejected(detail)) }
    package static func storageFailed(_ detail: CredentialStoreError) -> TransitionReason { TransitionReason(kind: .storageFailed(detail)) }
    package static func notJournaled(_ detail: CredentialStoreError) -> TransitionReason { TransitionReason(kind: .notJournaled(detail)) }
    package static let signOutRequested = TransitionReason(kind: .signOutRequested)
    package static let accountDeletionRequested = TransitionReason(kind: .accountDeletionRequested)
    package static let resumingPendingOperation = TransitionReason(kind: .resumingPendingOperation)
    package static func retrying(attempt: Int, afterSeconds: Double, because: SessionError) -> TransitionReason {
        TransitionReason(kind: .retrying(attempt: attempt, afterSeconds: afterSeconds, because: because))
    }
    package static let revocationConfirmed = TransitionReason(kind: .revocationConfirmed)
    package static func signedOutLocallyOnly(_ detail: SessionError) -> TransitionReason {
        TransitionReason(kind: .signedOutLocallyOnly(detail))
    }
    package static let accountDeleted = TransitionReason(kind: .accountDeleted)
    package static func accountDeletionRefused(status: Int) -> TransitionReason {
        TransitionReason(kind: .accountDeletionRefused(status: status))
    }
    package static let revocationDeferred = TransitionReason(kind: .revocationDeferred)
    package static func presentationFailed(_ detail: HandoffError) -> TransitionReason {
        TransitionReason(kind: .presentationFailed(detail))
    }
    package static func accountDeletionUnavailable(_ detail: UnsupportedOperation) -> TransitionReason {
        TransitionReason(kind: .accountDeletionUnavailable(detail))
    }
    package static let sessionExpired = TransitionReason(kind: .sessionExpired)
    package static let deviceSignInRequested = TransitionReason(kind: .deviceSignInRequested)
    package static func deviceCodeIssued(expiresInSeconds: Int) -> TransitionReason {
        TransitionReason(kind: .deviceCodeIssued(expiresInSeconds: expiresInSeconds))
    }
    package static func devicePollDeferred(afterSeconds: Double, because: String) -> TransitionReason {
        TransitionReason(kind: .devicePollDeferred(afterSeconds: afterSeconds, because: because))
    }
    package static let deviceSignInApproved = TransitionReason(kind: .deviceSignInApproved)
    package static let deviceCodeExpired = TransitionReason(kind: .deviceCodeExpired)
    package static func identifiedByUserInfo(subject: String) -> TransitionReason {
        TransitionReason(kind: .identifiedByUserInfo(subject: subject))
    }
    package static func deviceSignInFailed(_ detail: SessionError) -> TransitionReason {
        TransitionReason(kind: .deviceSignInFailed(detail))
    }
    package static let providerSessionEnded = TransitionReason(kind: .providerSessionEnded)
    package static func providerSessionNotEnded(_ detail: ProviderLogoutOutcome) -> TransitionReason {
        TransitionReason(kind: .providerSessionNotEnded(detail))
    }
    package static let internalFailure = TransitionReason(kind: .internalFailure)
    package static let shutDown = TransitionReason(kind: .shutDown)
    package static let guestSessionRequested = TransitionReason(kind: .guestSessionRequested)
    package static func guestStarted(subject: String, startedOver: Bool) -> TransitionReason {
        TransitionReason(kind: .guestStarted(subject: subject, startedOver: startedOver))
    }
    package static func guestKeyRenewed(callers: Int, startedOver: Bool) -> TransitionReason {
        TransitionReason(kind: .guestKeyRenewed(callers: callers, startedOver: startedOver))
    }
    package static func guestBootstrapFailed(_ detail: SessionError) -> TransitionReason {
        TransitionReason(kind: .guestBootstrapFailed(detail))
    }
    package static let guestSignOutRequested = TransitionReason(kind: .guestSignOutRequested)
    package static let guestSessionEnded = TransitionReason(kind: .guestSessionEnded)
}

extension TransitionReason {
    /// Which reason a ``TransitionReason`` is: a stable name, the same in every version.
    ///
    /// Compare with the constants, or switch with a `default:` branch; later versions may add codes.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The stable name, in `snake_case`: `sign_in_requested`, `refreshed` …
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The stable name.
        public var description: String { name }

        /// The first event on a transitions stream: the stage the session is in right now.
        public static let current = Code("current")
        /// The app called `signIn()`.
        public static let signInRequested = Code("sign_in_requested")
        /// The callback URL arrived; the code is being exchanged.
        public static let callbackReceived = Code("callback_received")
        /// The tokens were verified (sign-in, refresh or restore).
        public static let verified = Code("verified")
        /// A refresh was verified and handed to the callers waiting for it.
        public static let refreshed = Code("refreshed")
        /// A refresh answer without an id_token was accepted: the identity is the one verified before.
        public static let refreshedIdentityKept = Code("refreshed_identity_kept")
        /// The handoff did not answer in time.
        public static let handoffTimedOut = Code("handoff_timed_out")
        /// The person closed the handoff without choosing, or the app cancelled it.
        public static let handoffCancelled = Code("handoff_cancelled")
        /// The provider answered the authorization with an error (such as `access_denied`).
        public static let authorizationDenied = Code("authorization_denied")
        /// The callback did not belong to this handoff (`state` or `iss` mismatch).
        public static let callbackRejected = Code("callback_rejected")
        /// The code exchange failed at the provider.
        public static let exchangeFailed = Code("exchange_failed")
        /// The returned id_token failed verification; the code is DESIGN.md's stable error code.
        public static let verificationFailed = Code("verification_failed")
        /// The access token is due within the lead time.
        public static let tokenDue = Code("token_due")
        /// The app asked for a refresh explicitly.
        public static let refreshRequested = Code("refresh_requested")
        /// A cold launch found a stored refresh token.
        public static let restoring = Code("restoring")
        /// A cold launch found a verified session and signed in from the store, without the network.
        public static let restored = Code("restored")
        /// A cold launch signed in from the store and refreshes its access token, due in `inSeconds`.
        public static let restoredDue = Code("restored_due")
        /// A cold launch found a session written for another issuer or client and left it alone.
        public static let storedSessionNotRestored = Code("stored_session_not_restored")
        /// A cold launch found a session whose DPoP key is gone or is another key, and left it in
        /// the store unused (``SessionError/dpopKeyUnavailable(_:)``).
        public static let dpopKeyUnavailable = Code("dpop_key_unavailable")
        /// The store now holds another account's session (another `sub`, no merge claim linking them).
        public static let anotherAccountInStore = Code("another_account_in_store")
        /// Nothing was stored at cold launch.
        public static let nothingStored = Code("nothing_stored")
        /// A refresh failed in a way that may pass (network, 5xx, 429); the session keeps its tokens.
        public static let refreshFailedTransiently = Code("refresh_failed_transiently")
        /// The provider refused the refresh token: the session is over. Carries what it answered
        /// (status and error code, or "empty body"), never a value.
        public static let refreshRejected = Code("refresh_rejected")
        /// The credential store failed; the session cannot keep its promises durably.
        public static let storageFailed = Code("storage_failed")
        /// The store was read but a sign-out or deletion could not be journaled in it: the operation
        /// goes on, server first, but will not resume after a relaunch.
        public static let notJournaled = Code("not_journaled")
        /// The app called `signOut()`.
        public static let signOutRequested = Code("sign_out_requested")
        /// The app called `deleteAccount()`.
        public static let accountDeletionRequested = Code("account_deletion_requested")
        /// A journaled sign-out or deletion found at cold launch is being completed.
        public static let resumingPendingOperation = Code("resuming_pending_operation")
        /// A server call failed transiently and is retried after a delay.
        public static let retrying = Code("retrying")
        /// The provider confirmed the revocation; local credentials are wiped.
        public static let revocationConfirmed = Code("revocation_confirmed")
        /// The provider could not be told (no revocation endpoint, or it refused); local credentials are wiped.
        public static let signedOutLocallyOnly = Code("signed_out_locally_only")
        /// The provider confirmed the disconnect; local credentials and the device key are wiped.
        public static let accountDeleted = Code("account_deleted")
        /// The provider refused the disconnect (401/403); the credentials are kept.
        public static let accountDeletionRefused = Code("account_deletion_refused")
        /// A new sign-in started while an old refresh token still waits to be revoked.
        public static let revocationDeferred = Code("revocation_deferred")
        /// The presenter could not show the authorization page.
        public static let presentationFailed = Code("presentation_failed")
        /// The provider offers no way to delete the account's connection (or could not be asked); credentials are kept.
        public static let accountDeletionUnavailable = Code("account_deletion_unavailable")
        /// The access token expired and there is no refresh token: the session ended; sign in again.
        public static let sessionExpired = Code("session_expired")
        /// The app called `signInWithDeviceCode()`.
        public static let deviceSignInRequested = Code("device_sign_in_requested")
        /// The provider issued a device code; the person has `expiresInSeconds` to approve it elsewhere.
        public static let deviceCodeIssued = Code("device_code_issued")
        /// The provider asked for slower polling (`slow_down`), or a poll failed in a way that may pass;
        /// the next poll waits `afterSeconds`.
        public static let devicePollDeferred = Code("device_poll_deferred")
        /// The person approved the device sign-in; its tokens are being verified.
        public static let deviceSignInApproved = Code("device_sign_in_approved")
        /// The device code expired before the person approved it.
        public static let deviceCodeExpired = Code("device_code_expired")
        /// A device sign-in brought no id_token; the UserInfo answer to its access token named the person.
        public static let identifiedByUserInfo = Code("identified_by_user_info")
        /// The provider refused the device sign-in (its code request or a poll) for a reason polling cannot fix.
        public static let deviceSignInFailed = Code("device_sign_in_failed")
        /// The provider ended its browser session and came back.
        public static let providerSessionEnded = Code("provider_session_ended")
        /// Signed out (revoked or not, wiped), but the provider did not come back from its
        /// end-session page: its browser session may remain.
        public static let providerSessionNotEnded = Code("provider_session_not_ended")
        /// The session found itself in an inconsistent state (a bug in SessionKit) and stopped; every
        /// call now fails with `SessionError.sessionFailed`. Make a new session.
        public static let internalFailure = Code("internal_failure")
        /// The session was shut down (`Session.shutdown()`); its work has ended.
        public static let shutDown = Code("shut_down")
        /// The app called `startGuestSession()`; the device bootstraps a guest.
        public static let guestSessionRequested = Code("guest_session_requested")
        /// A guest session began: the provider issued an access key for the anonymous user `subject`.
        /// `startedOver`: the stored device secret was refused and the device bootstrapped afresh, so
        /// this is a new anonymous user, not the one the device had before.
        public static let guestStarted = Code("guest_started")
        /// A guest session's key was renewed by bootstrapping again with the stored device secret.
        /// `startedOver`: the secret was refused and the fresh bootstrap made a new anonymous user.
        public static let guestKeyRenewed = Code("guest_key_renewed")
        /// A guest bootstrap (a start or a renewal) gave no access key.
        public static let guestBootstrapFailed = Code("guest_bootstrap_failed")
        /// The app signed a guest session out (or deleted it): nothing is sent to the provider, the
        /// guest's key and device credential are wiped.
        public static let guestSignOutRequested = Code("guest_sign_out_requested")
        /// The guest session ended: its key, its device credential and the high-assurance item are
        /// wiped; the provider was not told (a device key has no revocation).
        public static let guestSessionEnded = Code("guest_session_ended")
    }

    /// Which reason this is; stable across versions.
    public var code: Code {
        switch kind {
        case .current: .current
        case .signInRequested: .signInRequested
        case .callbackReceived: .callbackReceived
        case .verified: .verified
        case .refreshed: .refreshed
        case .refreshedIdentityKept: .refreshedIdentityKept
        case .handoffTimedOut: .handoffTimedOut
        case .handoffCancelled: .handoffCancelled
        case .authorizationDenied: .authorizationDenied
        case .callbackRejected: .callbackRejected
        case .exchangeFailed: .exchangeFailed
        case .verificationFailed: .verificationFailed
        case .tokenDue: .tokenDue
        case .refreshRequested: .refreshRequested
        case .restoring: .restoring
        case .restored: .restored
        case .restoredDue: .restoredDue
        case .storedSessionNotRestored: .storedSessionNotRestored
        case .dpopKeyUnavailable: .dpopKeyUnavailable
        case .anotherAccountInStore: .anotherAccountInStore
        case .nothingStored: .nothingStored
        case .refreshFailedTransiently: .refreshFailedTransiently
        case .refreshRejected: .refreshRejected
        case .storageFailed: .storageFailed
        case .notJournaled: .notJournaled
        case .signOutRequested: .signOutRequested
        case .accountDeletionRequested: .accountDeletionRequested
        case .resumingPendingOperation: .resumingPendingOperation
        case .retrying: .retrying
        case .revocationConfirmed: .revocationConfirmed
        case .signedOutLocallyOnly: .signedOutLocallyOnly
        case .accountDeleted: .accountDeleted
        case .accountDeletionRefused: .accountDeletionRefused
        case .revocationDeferred: .revocationDeferred
        case .presentationFailed: .presentationFailed
        case .accountDeletionUnavailable: .accountDeletionUnavailable
        case .sessionExpired: .sessionExpired
        case .deviceSignInRequested: .deviceSignInRequested
        case .deviceCodeIssued: .deviceCodeIssued
        case .devicePollDeferred: .devicePollDeferred
        case .deviceSignInApproved: .deviceSignInApproved
        case .deviceCodeExpired: .deviceCodeExpired
        case .identifiedByUserInfo: .identifiedByUserInfo
        case .deviceSignInFailed: .deviceSignInFailed
        case .providerSessionEnded: .providerSessionEnded
        case .providerSessionNotEnded: .providerSessionNotEnded
        case .internalFailure: .internalFailure
        case .shutDown: .shutDown
        case .guestSessionRequested: .guestSessionRequested
        case .guestStarted: .guestStarted
        case .guestKeyRenewed: .guestKeyRenewed
        case .guestBootstrapFailed: .guestBootstrapFailed
        case .guestSignOutRequested: .guestSignOutRequested
        case .guestSessionEnded: .guestSessionEnded
        }
    }

    /// One readable phrase, as the walkthrough prints it.
    public var description: String {
        switch kind {
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
        case .exchangeFailed(let error): "code exchange failed: \(Self.phrase(error))"
        case .verificationFailed(let error): "id_token rejected: \(error.code)"
        case .tokenDue(let seconds, let callers):
            "token due in \(seconds)s; \(callers) caller\(callers == 1 ? "" : "s") waiting"
        case .refreshRequested: "refresh requested"
        case .restoring: "restoring from stored refresh token"
        case .restored(let subject): "restored from the store; sub \(subject)"
        case .restoredDue(let subject, let seconds): "restored from the store; sub \(subject); token due in \(seconds)s"
        case .storedSessionNotRestored(let why): "stored session not restored: \(why)"
        case .dpopKeyUnavailable(let loss): "DPoP key unavailable: \(loss.reason)"
        case .anotherAccountInStore: "the store holds another account's session"
        case .nothingStored: "nothing stored"
        case .refreshFailedTransiently(let error): "refresh failed, tokens kept: \(Self.phrase(error))"
        case .refreshRejected(let answer): "refresh rejected: \(answer?.answerSummary ?? "invalid_grant")"
        case .storageFailed(let why): "credential store failed: \(why)"
        case .notJournaled(let why): "not journaled (\(why)); going on, but a relaunch will not resume it"
        case .signOutRequested: "sign-out requested; revoking at the provider"
        case .accountDeletionRequested: "account deletion requested; disconnecting at the provider"
        case .resumingPendingOperation: "resuming journaled operation"
        case .retrying(let attempt, let after, let why):
            "attempt \(attempt) failed (\(Self.phrase(why))); retrying in \(Self.format(after))s"
        case .revocationConfirmed: "revocation confirmed; local credentials wiped"
        case .signedOutLocallyOnly(let error):
            if case .provider(let answer) = error.kind, let status = answer.status {
                "signed out locally; provider not told: revocation refused (\(status))"
            } else {
                "signed out locally; provider not told: \(Self.phrase(error))"
            }
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
        case .deviceSignInFailed(let error): "device sign-in failed: \(Self.phrase(error))"
        case .providerSessionEnded: "provider session ended"
        case .providerSessionNotEnded(let why): "signed out; the provider's browser session may remain: \(why)"
        case .internalFailure: "internal inconsistency; session stopped"
        case .shutDown: "session shut down"
        case .guestSessionRequested: "guest session requested; bootstrapping the device"
        case .guestStarted(let subject, let startedOver):
            "guest key issued; anonymous user \(subject)\(startedOver ? " (a new anonymous user: the stored device secret was refused)" : "")"
        case .guestKeyRenewed(let callers, let startedOver):
            "guest key renewed; \(callers) caller\(callers == 1 ? "" : "s") served"
                + (startedOver ? "; a new anonymous user (the stored device secret was refused)" : "")
        case .guestBootstrapFailed(let error): "guest bootstrap failed: \(Self.phrase(error))"
        case .guestSignOutRequested: "guest sign-out requested; nothing to revoke at the provider"
        case .guestSessionEnded: "guest session ended; key and device credential wiped"
        }
    }

    /// A short, secret-free phrase for the error a reason carries.
    package static func phrase(_ error: SessionError) -> String {
        switch error.kind {
        case .provider(let provider): provider.summary
        case .storage(let storage): "\(storage)"
        case .verificationFailed(let error): error.code
        case .unsupported(let operation): operation.description
        default: "\(error)"
        }
    }

    private static func format(_ seconds: Double) -> String {
        let rounded = (seconds * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}
