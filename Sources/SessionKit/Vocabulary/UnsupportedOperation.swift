public import SessionKitJOSE

/// What a session could not do because the provider, the presenter, the store or the session's
/// state does not allow it: the detail of ``SessionError/Code/unsupported``.
///
/// ``code`` is stable across versions; the ``description`` is a readable phrase. Compare with the
/// constants (`operation == .deviceAuthorization`) or by ``code``.
public struct UnsupportedOperation: Sendable, Hashable, CustomStringConvertible {
    /// The stable name, in `snake_case`: `device_authorization`, `account_deletion` …
    public let code: String
    /// A readable, secret-free phrase.
    public let description: String

    package init(code: String, description: String) {
        self.code = code
        self.description = description
    }

    /// The provider offers no device authorization endpoint (RFC 8628).
    public static let deviceAuthorization = UnsupportedOperation(
        code: "device_authorization", description: "the provider offers no device authorization endpoint")
    /// A device sign-in brought no id_token, and there is no UserInfo endpoint to name the person.
    public static let identityWithoutIDToken = UnsupportedOperation(
        code: "identity_without_id_token", description: "no id_token, and no UserInfo endpoint to name the person")
    /// The credential store keeps no guest credential, so no guest session can start.
    public static let guestCredential = UnsupportedOperation(
        code: "guest_credential", description: "the credential store keeps no guest credential")
    /// The session has no refresh token, so it cannot get a newer access token.
    public static let refreshWithoutRefreshToken = UnsupportedOperation(
        code: "refresh_without_refresh_token", description: "the session has no refresh token")
    /// The provider offers no app disconnect, so the account cannot be deleted through it.
    public static let accountDeletion = UnsupportedOperation(
        code: "account_deletion", description: "the provider offers no app disconnect")
    /// The disconnect needs a device key, and no device-key source is set.
    public static let deviceKey = UnsupportedOperation(
        code: "device_key", description: "no device-key source is set, and the disconnect needs a device key")
    /// No stored session is left to disconnect.
    public static let nothingStored = UnsupportedOperation(code: "nothing_stored", description: "no stored session to disconnect")
    /// The access token expired, and there is no refresh token to get one the provider accepts.
    public static let expiredWithoutRefreshToken = UnsupportedOperation(
        code: "expired_without_refresh_token", description: "the access token expired and there is no refresh token")
    /// The store holds another account's session now.
    public static let anotherAccountInStore = UnsupportedOperation(
        code: "another_account_in_store", description: "the store holds another account's session")
    /// The DPoP key the stored refresh token is bound to is gone, so no access token can be had
    /// to ask the provider with (RFC 9449: the token is never presented without its key's proof).
    public static let dpopKeyUnavailable = UnsupportedOperation(
        code: "dpop_key_unavailable", description: "the DPoP key the refresh token is bound to is gone")
    /// The provider has no revocation endpoint (RFC 7009), so a sign-out cannot tell it.
    public static let revocation = UnsupportedOperation(code: "revocation", description: "the provider has no revocation endpoint")

    /// The refresh a disconnect needed returned an id_token that failed a check.
    public static func refreshedIDTokenRejected(_ error: IDTokenError) -> UnsupportedOperation {
        UnsupportedOperation(code: "refreshed_id_token_rejected", description: "the refreshed id_token was rejected (\(error.code))")
    }

    /// The presenter cannot show this kind of handoff; `detail` is its own phrase
    /// (``HandoffError/unsupported(_:)``).
    public static func presentation(_ detail: String) -> UnsupportedOperation {
        UnsupportedOperation(code: "presentation", description: detail)
    }
}

/// What a stored session was written for instead of this session's provider and client: the
/// detail of ``SessionError/Code/storedSessionForeign``.
///
/// Closed by design: a stored session names exactly these two, and both must match.
public enum StoredSessionMismatch: String, Sendable, Hashable, CustomStringConvertible {
    /// It was written for another issuer.
    case issuer
    /// It was written for another client.
    case client

    /// The stable name: `issuer`, `client`.
    public var code: String { rawValue }

    /// A readable phrase.
    public var description: String { "it was written for another \(rawValue)" }
}
