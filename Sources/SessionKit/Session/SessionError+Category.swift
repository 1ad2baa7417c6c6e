extension SessionError {
    /// What an app should do about an error.
    public enum Category: String, Sendable, Hashable, CaseIterable {
        /// There is no usable session: show sign-in.
        case signInRequired
        /// It may pass (network, provider outage, rate limit): keep the session, try again later.
        case transient
        /// The app called something the current stage does not allow (a bug in the app's flow).
        case misuse
        /// Another operation owns the session (sign-out, deletion): wait for it to finish.
        case operationInProgress
        /// The person, the presenter or the app ended the operation.
        case cancelled
        /// The provider refused a request in a way waiting will not change (a 403 or 404 to a
        /// refresh, a server-first operation refused), or its answer was not accepted (a UserInfo
        /// `sub` mismatch); nothing was changed locally, and a signed-in session stays signed in.
        case refused
        /// The provider does not offer the operation.
        case unsupported
        /// The credential store failed; the session could not keep its promises durably.
        case storage
        /// The system failed (the random source).
        case system
    }

    /// What an app should do about this error.
    public var category: Category {
        switch self {
        case .notSignedIn, .refreshTokenRejected, .verificationFailed, .handoffTimedOut, .authorizationDenied, .callbackRejected,
            .storedSessionForeign, .anotherAccountInStore:
            .signInRequired
        case .sessionExpired, .deviceCodeExpired:
            .signInRequired
        case .provider(let error):
            // A provider error that ends a session arrives as another case (refreshTokenRejected,
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

    /// A stable identifier, for logs and analytics: `not_signed_in`, `verification_failed.bad_signature`,
    /// `provider.http_503`, `storage.corrupted` …; never a secret.
    public var code: String {
        switch self {
        case .notSignedIn: "not_signed_in"
        case .signInInProgress: "sign_in_in_progress"
        case .alreadySignedIn: "already_signed_in"
        case .signOutInProgress: "sign_out_in_progress"
        case .accountDeletionInProgress: "account_deletion_in_progress"
        case .cancelled: "cancelled"
        case .handoffTimedOut: "handoff_timed_out"
        case .authorizationDenied: "authorization_denied"
        case .presentationFailed: "presentation_failed"
        case .callbackRejected: "callback_rejected"
        case .verificationFailed(let error): "verification_failed.\(error.code)"
        case .provider(let error): "provider.\(error.code)"
        case .refreshTokenRejected: "refresh_token_rejected"
        case .accountDeletionRefused: "account_deletion_refused"
        case .storage(let error): "storage.\(error.code)"
        case .unsupported: "unsupported"
        case .randomSourceFailed: "random_source_failed"
        case .invalidRequestOptions: "invalid_request_options"
        case .sessionExpired: "session_expired"
        case .deviceCodeExpired: "device_code_expired"
        case .userInfoRejected(let error): "userinfo_rejected.\(error.code)"
        case .storedSessionForeign: "stored_session_foreign"
        case .anotherAccountInStore: "another_account_in_store"
        case .sessionFailed: "session_failed"
        case .shutDown: "shut_down"
        case .guestBootstrapFailed(let error): "guest_bootstrap_failed.\(Self.code(of: error))"
        }
    }
}

extension SessionError {
    /// The stable part of a guest bootstrap error's code.
    fileprivate static func code(of error: AnonymousBootstrapError) -> String {
        switch error {
        case .notConfigured: "not_configured"
        case .invalidDeviceSecret: "invalid_device_secret"
        case .rejected(let status, _): "http_\(status)"
        case .unavailable(let status, _): "http_\(status)"
        case .malformedResponse: "malformed_response"
        case .transport: "transport"
        case .storage(let error): "storage.\(error.code)"
        case .cancelled: "cancelled"
        case .inconsistent: "inconsistent"
        }
    }
}

extension SessionError: CustomStringConvertible {
    /// The ``code`` and a secret-free detail.
    public var description: String {
        switch self {
        case .authorizationDenied(let detail), .presentationFailed(let detail), .callbackRejected(let detail), .unsupported(let detail),
            .storedSessionForeign(let detail):
            "\(code): \(detail)"
        case .provider(let error): "\(code): \(error.summary)"
        case .guestBootstrapFailed(let error): "\(code): \(error)"
        case .accountDeletionRefused(let status): "\(code): HTTP \(status)"
        case .storage(let error): "\(code): \(error)"
        case .invalidRequestOptions(let error): "\(code): \(error)"
        case .notSignedIn, .signInInProgress, .alreadySignedIn, .signOutInProgress, .accountDeletionInProgress, .cancelled,
            .handoffTimedOut, .verificationFailed, .refreshTokenRejected, .randomSourceFailed, .anotherAccountInStore, .sessionExpired,
            .deviceCodeExpired, .userInfoRejected, .sessionFailed, .shutDown:
            code
        }
    }
}
