import SessionKitCore

extension SessionError {
    /// What an app should do about an error.
    ///
    /// Closed by design: each category is one thing an app does about a failure, so an app may
    /// switch over them without a `default:`. A new category would be a new thing every app has
    /// to do, which is a change an app should be told about by its compiler.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// There is no usable session: show sign-in.
        case signInRequired
        /// It may pass (network, provider outage, rate limit, a sign-in from a guest session that got
        /// no answer in time): keep the session, try again later.
        case transient
        /// The app called something the current stage does not allow (a bug in the app's flow).
        case misuse
        /// Another operation owns the session (sign-out, deletion): wait for it to finish.
        case operationInProgress
        /// The person, the presenter or the app ended the operation.
        case cancelled
        /// The provider refused a request in a way waiting will not change (a 403 or 404 to a
        /// refresh, a server-first operation refused), or its answer was not accepted (a UserInfo
        /// `sub` mismatch, a sign-in from a guest session that was denied or whose answer was
        /// rejected); nothing was changed locally, and a signed-in session stays signed in.
        case refused
        /// The provider does not offer the operation.
        case unsupported
        /// The credential store failed; the session could not keep its promises durably.
        case storage
        /// The system failed (the random source).
        case system
    }

    /// What an app should do about this error.
    ///
    /// The category agrees with the stage the failed operation left the session in: it is
    /// ``Category/signInRequired`` only when there is no session. A sign-in started from a guest
    /// session that did not complete returns to the guest, so its failure is
    /// ``Category/transient`` when nothing came back in time (a timeout, an expired device code, a
    /// page that could not be shown), ``Category/refused`` when the answer was a refusal or was not
    /// accepted (a denial, a rejected callback or id_token), or ``Category/cancelled``.
    public var category: Category {
        let category = categoryOfKind
        guard keptSignedInSession, category == .signInRequired else { return category }
        switch kind {
        case .handoffTimedOut, .deviceCodeExpired, .presentationFailed: return .transient
        default: return .refused
        }
    }

    /// The category of the failure in a session that has ended, or never began.
    private var categoryOfKind: Category {
        switch kind {
        case .notSignedIn, .refreshTokenRejected, .verificationFailed, .handoffTimedOut, .authorizationDenied, .callbackRejected,
            .storedSessionForeign, .anotherAccountInStore, .dpopKeyUnavailable:
            .signInRequired
        case .sessionExpired, .deviceCodeExpired:
            .signInRequired
        case .provider(let error):
            // A provider error that ends a session arrives as another kind (refreshTokenRejected,
            // verificationFailed): this one kept the session, or left a sign-in where it was.
            error.isTransient ? .transient : .refused
        case .presentationFailed:
            .signInRequired
        case .signInInProgress, .alreadySignedIn, .invalidRequestOptions:
            .misuse
        case .signOutInProgress, .accountDeletionInProgress:
            .operationInProgress
        case .cancelled:
            .cancelled
        case .accountDeletionRefused, .userInfoRejected:
            .refused
        case .unsupported:
            .unsupported
        case .storage(.locked):
            // The device is locked: the session is there, readable once it is unlocked.
            .transient
        case .storage:
            .storage
        case .randomSourceFailed, .sessionFailed:
            .system
        case .shutDown:
            .misuse
        case .guestBootstrapFailed(let error):
            switch error {
            case .unavailable, .transport: error.isTransient ? .transient : .cancelled
            case .storage(.locked): .transient
            case .storage: .storage
            case .cancelled: .cancelled
            case .notConfigured: .unsupported
            case .inconsistent: .system
            // The guest's key is gone and the session ended: start a new guest session or sign in.
            case .invalidDeviceSecret, .rejected, .malformedResponse: .signInRequired
            }
        }
    }

    /// Whether the person must sign in (again) before a token can be had.
    public var requiresSignIn: Bool { category == .signInRequired }
    /// Whether the failure may pass on its own: the session is kept, a later call may succeed.
    public var isTransient: Bool { category == .transient }
    /// Whether the app called something the current stage does not allow.
    public var isMisuse: Bool { category == .misuse }
    /// Whether the credential store failed.
    public var isStorageFailure: Bool { category == .storage }
}

extension SessionError: CustomStringConvertible {
    /// The ``identifier`` and a secret-free detail.
    public var description: String {
        switch kind {
        case .authorizationDenied(let error): "\(identifier): \(Self.printable(error))"
        case .presentationFailed(let error): "\(identifier): \(error)"
        case .callbackRejected(let refusal): "\(identifier): \(refusal)"
        case .unsupported(let operation): "\(identifier): \(operation)"
        case .storedSessionForeign(let mismatch): "\(identifier): \(mismatch)"
        case .dpopKeyUnavailable: identifier
        case .provider(let error): "\(identifier): \(error.summary)"
        case .guestBootstrapFailed(let error): "\(identifier): \(error)"
        case .accountDeletionRefused(let status): "\(identifier): HTTP \(status)"
        case .storage(let error): "\(identifier): \(error)"
        case .invalidRequestOptions(let error): "\(identifier): \(error)"
        case .notSignedIn, .signInInProgress, .alreadySignedIn, .signOutInProgress, .accountDeletionInProgress, .cancelled,
            .handoffTimedOut, .verificationFailed, .refreshTokenRejected, .randomSourceFailed, .anotherAccountInStore, .sessionExpired,
            .deviceCodeExpired, .userInfoRejected, .sessionFailed, .shutDown:
            identifier
        }
    }

    /// A provider-chosen `error` code, cut to its registered character set and 64 characters.
    private static func printable(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.prefix(64).filter { $0.value >= 0x20 && $0.value <= 0x7E && $0 != "\\" }))
    }
}
