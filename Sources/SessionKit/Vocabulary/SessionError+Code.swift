import SessionKitCore

extension SessionError {
    /// Which failure a ``SessionError`` is: a stable name, the same in every version.
    ///
    /// Compare with the constants, or switch with a `default:` branch; later versions may add codes.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The stable name, in `snake_case`: `not_signed_in`, `provider`, `storage` …
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The stable name.
        public var description: String { name }

        /// ``SessionError/notSignedIn``.
        public static let notSignedIn = Code("not_signed_in")
        /// ``SessionError/signInInProgress``.
        public static let signInInProgress = Code("sign_in_in_progress")
        /// ``SessionError/alreadySignedIn``.
        public static let alreadySignedIn = Code("already_signed_in")
        /// ``SessionError/signOutInProgress``.
        public static let signOutInProgress = Code("sign_out_in_progress")
        /// ``SessionError/accountDeletionInProgress``.
        public static let accountDeletionInProgress = Code("account_deletion_in_progress")
        /// ``SessionError/cancelled``.
        public static let cancelled = Code("cancelled")
        /// ``SessionError/handoffTimedOut``.
        public static let handoffTimedOut = Code("handoff_timed_out")
        /// ``SessionError/authorizationDenied(_:)``.
        public static let authorizationDenied = Code("authorization_denied")
        /// ``SessionError/presentationFailed(_:)``.
        public static let presentationFailed = Code("presentation_failed")
        /// ``SessionError/callbackRejected(_:)``.
        public static let callbackRejected = Code("callback_rejected")
        /// ``SessionError/verificationFailed(_:)``.
        public static let verificationFailed = Code("verification_failed")
        /// ``SessionError/provider(_:)``.
        public static let provider = Code("provider")
        /// ``SessionError/refreshTokenRejected``.
        public static let refreshTokenRejected = Code("refresh_token_rejected")
        /// ``SessionError/accountDeletionRefused(status:)``.
        public static let accountDeletionRefused = Code("account_deletion_refused")
        /// ``SessionError/storage(_:)``.
        public static let storage = Code("storage")
        /// ``SessionError/unsupported(_:)``.
        public static let unsupported = Code("unsupported")
        /// ``SessionError/storedSessionForeign(_:)``.
        public static let storedSessionForeign = Code("stored_session_foreign")
        /// ``SessionError/anotherAccountInStore``.
        public static let anotherAccountInStore = Code("another_account_in_store")
        /// ``SessionError/dpopKeyUnavailable(_:)``.
        public static let dpopKeyUnavailable = Code("dpop_key_unavailable")
        /// ``SessionError/randomSourceFailed``.
        public static let randomSourceFailed = Code("random_source_failed")
        /// ``SessionError/invalidRequestOptions(_:)``.
        public static let invalidRequestOptions = Code("invalid_request_options")
        /// ``SessionError/sessionExpired``.
        public static let sessionExpired = Code("session_expired")
        /// ``SessionError/deviceCodeExpired``.
        public static let deviceCodeExpired = Code("device_code_expired")
        /// ``SessionError/userInfoRejected(_:)``.
        public static let userInfoRejected = Code("userinfo_rejected")
        /// ``SessionError/sessionFailed``.
        public static let sessionFailed = Code("session_failed")
        /// ``SessionError/shutDown``.
        public static let shutDown = Code("shut_down")
        /// ``SessionError/guestBootstrapFailed(_:)``.
        public static let guestBootstrapFailed = Code("guest_bootstrap_failed")
    }

    /// Which failure this is; stable across versions.
    public var code: Code {
        switch kind {
        case .notSignedIn: .notSignedIn
        case .signInInProgress: .signInInProgress
        case .alreadySignedIn: .alreadySignedIn
        case .signOutInProgress: .signOutInProgress
        case .accountDeletionInProgress: .accountDeletionInProgress
        case .cancelled: .cancelled
        case .handoffTimedOut: .handoffTimedOut
        case .authorizationDenied: .authorizationDenied
        case .presentationFailed: .presentationFailed
        case .callbackRejected: .callbackRejected
        case .verificationFailed: .verificationFailed
        case .provider: .provider
        case .refreshTokenRejected: .refreshTokenRejected
        case .accountDeletionRefused: .accountDeletionRefused
        case .storage: .storage
        case .unsupported: .unsupported
        case .storedSessionForeign: .storedSessionForeign
        case .anotherAccountInStore: .anotherAccountInStore
        case .dpopKeyUnavailable: .dpopKeyUnavailable
        case .randomSourceFailed: .randomSourceFailed
        case .invalidRequestOptions: .invalidRequestOptions
        case .sessionExpired: .sessionExpired
        case .deviceCodeExpired: .deviceCodeExpired
        case .userInfoRejected: .userInfoRejected
        case .sessionFailed: .sessionFailed
        case .shutDown: .shutDown
        case .guestBootstrapFailed: .guestBootstrapFailed
        }
    }

    /// The ``code`` and, where the detail has one, its own stable code, for logs and analytics:
    /// `not_signed_in`, `verification_failed.bad_signature`, `provider.http_503`,
    /// `storage.corrupted`, `unsupported.device_authorization` …; never a secret.
    public var identifier: String {
        switch kind {
        case .verificationFailed(let error): "\(code).\(error.code)"
        case .provider(let error): "\(code).\(error.code)"
        case .storage(let error): "\(code).\(error.code)"
        case .userInfoRejected(let error): "\(code).\(error.code)"
        case .guestBootstrapFailed(let error): "\(code).\(Self.code(of: error))"
        case .unsupported(let operation): "\(code).\(operation.code)"
        case .callbackRejected(let refusal): "\(code).\(refusal.code)"
        case .storedSessionForeign(let mismatch): "\(code).\(mismatch.code)"
        case .dpopKeyUnavailable(let loss): "\(code).\(loss.reason.rawValue)"
        case .authorizationDenied(let error): "\(code).\(Self.codeSafe(error))"
        case .notSignedIn, .signInInProgress, .alreadySignedIn, .signOutInProgress, .accountDeletionInProgress, .cancelled,
            .handoffTimedOut, .presentationFailed, .refreshTokenRejected, .accountDeletionRefused, .anotherAccountInStore,
            .randomSourceFailed, .invalidRequestOptions, .sessionExpired, .deviceCodeExpired, .sessionFailed, .shutDown:
            code.name
        }
    }

    /// The stable part of a guest bootstrap error's code.
    private static func code(of error: AnonymousBootstrapError) -> String {
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

    /// An OAuth `error` code as an identifier part: its registered form (`%x20-21 / %x23-5B /
    /// %x5D-7E`, RFC 6749 §4.1.2.1) when it is one, else `other`.
    private static func codeSafe(_ error: String) -> String {
        let allowed =
            !error.isEmpty && error.utf8.count <= 64
            && error.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x5F
            }
        return allowed ? error : "other"
    }
}
