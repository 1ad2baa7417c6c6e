/// Why a session's DPoP key could not be used, and who was signed in: the way back to a session.
///
/// Restore finds the key a stored session's tokens are bound to and compares its RFC 7638
/// thumbprint with the one stored beside them. A key that is gone (a reset Keychain, a backup
/// restored on another device) or that is another key is never used, and no request is sent with
/// the wrong key: ``Session/restore()`` throws ``SessionError/dpopKeyUnavailable(_:)`` with this
/// value, the stored record is left as it is (no silent wipe), and the next sign-in suggests the
/// same account (``signInOptions``); that sign-in's record replaces the old one and queues its
/// refresh token for revocation.
public struct DPoPKeyLoss: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the key could not be used.
    public struct Reason: Sendable, Hashable, CustomStringConvertible {
        /// The stable identifier.
        public let rawValue: String

        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// The key store has no key where the record says.
        public static let missing = Reason("missing")
        /// A key was found, but its thumbprint is not the one the tokens are bound to.
        public static let thumbprintMismatch = Reason("thumbprint_mismatch")
        /// The key store failed to read the key.
        public static let unreadable = Reason("unreadable")
        /// A sign-in could not make its key (the key store failed).
        public static let notCreated = Reason("not_created")

        /// The stable identifier.
        public var description: String { rawValue }
    }

    /// Why.
    public let reason: Reason
    /// The effective subject of the stored session, when a stored session's key was lost.
    public let subject: String?
    /// The account name to suggest at the next sign-in (`preferred_username`, else `email`, of the
    /// stored identity), when one was kept.
    public let loginHint: String?

    /// A loss for `reason`, with what is known of the account.
    public init(reason: Reason, subject: String? = nil, loginHint: String? = nil) {
        self.reason = reason
        self.subject = subject
        self.loginHint = loginHint
    }

    /// Options for the next sign-in that suggest the same account (`login_hint`).
    public var signInOptions: AuthorizationRequestOptions {
        var options = AuthorizationRequestOptions.empty
        options.loginHint = loginHint
        return options
    }

    /// The reason only: no account name.
    public var description: String { "DPoPKeyLoss(\(reason))" }
}
