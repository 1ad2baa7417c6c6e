/// Why a refresh attempt failed, classified before it reaches the machine.
enum RefreshFailure: Sendable, Equatable {
    /// May pass; `retryIn` is the backoff delay, or `nil` when the retry policy gave up.
    case transient(SessionError, retryIn: Duration?)
    /// The session is over: refresh token refused, id_token rejected, store failed.
    case permanent(SessionError)
}

/// Why a server-first operation (revoke, disconnect) failed, classified before it reaches the machine.
enum ServerOperationFailure: Sendable, Equatable {
    /// May pass; retried after `retryIn`.
    case transient(String, retryIn: Duration)
    /// The provider refused (401/403 on disconnect): credentials are kept.
    case refused(status: Int)
    /// The provider cannot be told (no endpoint, or a permanent refusal of a revocation).
    case cannotTell(String)
    /// The store failed while journaling or completing.
    case storage(CredentialStoreError)
}
