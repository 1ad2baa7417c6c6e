public import SessionKitCore
public import SessionKitJOSE

/// Everything a `Session` call can fail with. Safe to print: nothing in it carries a secret.
///
/// Ask ``category`` (or ``requiresSignIn``, ``isTransient``, ``isMisuse``, ``isStorageFailure``)
/// what to do about an error. ``code`` says which failure it is, and stays the same across
/// versions; compare it with the constants (`error.code == .notSignedIn`), or switch over it with
/// a `default:` branch. ``identifier`` adds the detail's own code (`provider.http_503`), for logs
/// and analytics. The typed details (``providerError``, ``verificationError``, ``storageError`` …)
/// say more where there is more to say.
///
/// `SessionError` is a struct rather than an enum so that a later version can add kinds of
/// failure without breaking an app's exhaustive `switch`. The constants with the names of the
/// kinds (``notSignedIn``, ``provider(_:)`` …) make errors for comparisons and for an app's own
/// tests.
public struct SessionError: Error, Sendable, Hashable {
    /// Which failure this is, with its typed payload.
    package let kind: Kind
    /// Whether the operation that failed left a signed-in session as it was: a sign-in started
    /// from a guest session returns to the guest. ``category`` then never asks for sign-in.
    ///
    /// Not part of the error's identity: two errors are equal when they name the same failure,
    /// so `error == .handoffTimedOut` holds wherever the sign-in started.
    package private(set) var keptSignedInSession = false

    package init(kind: Kind) {
        self.kind = kind
    }

    /// This error, from an operation that left the signed-in session it started from as it was.
    package func keepingSignedInSession() -> SessionError {
        var error = self
        error.keptSignedInSession = true
        return error
    }

    /// Whether both name the same failure (the stage the session was left in is not compared).
    public static func == (lhs: SessionError, rhs: SessionError) -> Bool {
        lhs.kind == rhs.kind
    }

    /// Hashes the failure, as ``==(_:_:)`` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
    }
}

extension SessionError {
    /// The failures, one case each; the payloads are the typed details.
    package enum Kind: Sendable, Hashable {
        case notSignedIn
        case signInInProgress
        case alreadySignedIn
        case signOutInProgress
        case accountDeletionInProgress
        case cancelled
        case handoffTimedOut
        case authorizationDenied(String)
        case presentationFailed(HandoffError)
        case callbackRejected(CallbackRefusal)
        case verificationFailed(IDTokenError)
        case provider(ProviderError)
        case refreshTokenRejected
        case accountDeletionRefused(status: Int)
        case storage(CredentialStoreError)
        case unsupported(UnsupportedOperation)
        case storedSessionForeign(StoredSessionMismatch)
        case dpopKeyUnavailable(DPoPKeyLoss)
        case anotherAccountInStore
        case randomSourceFailed
        case invalidRequestOptions(AuthorizationRequestOptionsError)
        case sessionExpired
        case deviceCodeExpired
        case userInfoRejected(UserInfoError)
        case sessionFailed
        case shutDown
        case guestBootstrapFailed(AnonymousBootstrapError)
    }
}

extension SessionError {
    /// There is no session (sign in or restore first).
    public static let notSignedIn = SessionError(kind: .notSignedIn)
    /// A sign-in is already waiting for the provider.
    public static let signInInProgress = SessionError(kind: .signInInProgress)
    /// A session is already active; sign out first.
    public static let alreadySignedIn = SessionError(kind: .alreadySignedIn)
    /// Sign-out is waiting for the provider's confirmation; no token is handed out meanwhile.
    public static let signOutInProgress = SessionError(kind: .signOutInProgress)
    /// Account deletion is waiting for the provider's confirmation; no token is handed out meanwhile.
    public static let accountDeletionInProgress = SessionError(kind: .accountDeletionInProgress)
    /// The calling task was cancelled, or the operation was superseded by the app.
    public static let cancelled = SessionError(kind: .cancelled)
    /// The handoff got no answer before its timeout.
    public static let handoffTimedOut = SessionError(kind: .handoffTimedOut)
    /// The provider refused the refresh token (`invalid_grant`); the session ended.
    public static let refreshTokenRejected = SessionError(kind: .refreshTokenRejected)
    /// The store now holds another account's session (another `sub`, no merge claim linking it to
    /// this one): this session ended rather than adopt it.
    public static let anotherAccountInStore = SessionError(kind: .anotherAccountInStore)
    /// The system's cryptographically secure random source failed, so no sign-in parameters could be made.
    public static let randomSourceFailed = SessionError(kind: .randomSourceFailed)
    /// The access token expired and the provider issued no refresh token with it: the session
    /// ended; sign in again (ask for `offline_access` to get a refresh token from most providers).
    public static let sessionExpired = SessionError(kind: .sessionExpired)
    /// The device code of a device sign-in expired before the person approved it.
    public static let deviceCodeExpired = SessionError(kind: .deviceCodeExpired)
    /// The session stopped after finding itself inconsistent (a bug in SessionKit); its stored
    /// credentials are untouched. Make a new session (it restores them).
    public static let sessionFailed = SessionError(kind: .sessionFailed)
    /// The session was shut down (`Session.shutdown()`); make a new one to go on.
    public static let shutDown = SessionError(kind: .shutDown)

    /// The person or the provider declined the authorization: `error` is the callback's `error`
    /// code (RFC 6749 §4.1.2.1: `access_denied`, `login_required` …), never a description.
    public static func authorizationDenied(_ error: String) -> SessionError { SessionError(kind: .authorizationDenied(error)) }
    /// The presenter could not show the authorization page.
    public static func presentationFailed(_ error: HandoffError) -> SessionError { SessionError(kind: .presentationFailed(error)) }
    /// The callback URL did not belong to the pending handoff, or did not carry what it must.
    public static func callbackRejected(_ refusal: CallbackRefusal) -> SessionError { SessionError(kind: .callbackRejected(refusal)) }
    /// The returned id_token failed verification.
    public static func verificationFailed(_ error: IDTokenError) -> SessionError { SessionError(kind: .verificationFailed(error)) }
    /// The provider could not be reached or answered with an error.
    public static func provider(_ error: ProviderError) -> SessionError { SessionError(kind: .provider(error)) }
    /// The provider refused the disconnect (401/403); credentials are kept.
    public static func accountDeletionRefused(status: Int) -> SessionError { SessionError(kind: .accountDeletionRefused(status: status)) }
    /// The credential store failed.
    public static func storage(_ error: CredentialStoreError) -> SessionError { SessionError(kind: .storage(error)) }
    /// The provider profile does not offer this operation, or the presenter cannot show it (a
    /// device code), or the session cannot do it (a refresh without a refresh token).
    public static func unsupported(_ operation: UnsupportedOperation) -> SessionError { SessionError(kind: .unsupported(operation)) }
    /// The store holds a session written for another issuer or client; it was not restored.
    public static func storedSessionForeign(_ mismatch: StoredSessionMismatch) -> SessionError {
        SessionError(kind: .storedSessionForeign(mismatch))
    }
    /// The session's DPoP key could not be used (RFC 9449): a stored session's key is gone or is
    /// another key (restore), or a sign-in could not make one. No request was sent with another
    /// key; the stored record is kept, and ``DPoPKeyLoss/signInOptions`` suggests the same account
    /// at the next sign-in.
    public static func dpopKeyUnavailable(_ loss: DPoPKeyLoss) -> SessionError {
        SessionError(kind: .dpopKeyUnavailable(loss))
    }
    /// The sign-in's request options break a rule (a reserved extra parameter, `prompt=none` with
    /// another value, …); nothing was sent.
    public static func invalidRequestOptions(_ error: AuthorizationRequestOptionsError) -> SessionError {
        SessionError(kind: .invalidRequestOptions(error))
    }
    /// The UserInfo answer was refused: not a JSON object, no `sub`, or another person's `sub`
    /// (OpenID Connect Core §5.3.2). Nothing of it was used.
    public static func userInfoRejected(_ error: UserInfoError) -> SessionError { SessionError(kind: .userInfoRejected(error)) }
    /// A guest session's bootstrap (its start, or the renewal of its key) gave no access key:
    /// the provider refused the device secret also after one fresh bootstrap
    /// (``AnonymousBootstrapError/invalidDeviceSecret``), refused the request, was unavailable, or
    /// the guest credential could not be kept.
    public static func guestBootstrapFailed(_ error: AnonymousBootstrapError) -> SessionError {
        SessionError(kind: .guestBootstrapFailed(error))
    }
}
