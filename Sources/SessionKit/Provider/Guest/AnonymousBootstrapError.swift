public import SessionKitCore

/// Why a guest bootstrap gave no access key. No case carries a secret or a response body.
@nonexhaustive
public enum AnonymousBootstrapError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The provider profile has no guest bootstrap (``ProviderConfiguration/anonymousBootstrap`` is `nil`).
    case notConfigured
    /// `401 invalid_device_secret`, also after the secret was dropped and the device bootstrapped
    /// afresh once: the guest must start over (or sign in).
    case invalidDeviceSecret
    /// The provider refused the request for good (another 4xx), with its `error` code when it gave one.
    case rejected(status: Int, error: String?)
    /// The provider is temporarily unable to answer (408, 429, 5xx); `retryAfter` from `Retry-After`.
    case unavailable(status: Int, retryAfter: Duration?)
    /// A 2xx answer that is not a bootstrap answer; the text names the member at fault.
    case malformedResponse(String)
    /// The request produced no response.
    case transport(TransportError)
    /// The guest credential could not be read or written; the access key was not used.
    case storage(CredentialStoreError)
    /// The calling task was cancelled, or the guest credential was reset while the bootstrap ran.
    case cancelled
    /// The bootstrap procedure was fed an answer it cannot be waiting for (a bug in SessionKit);
    /// a session that meets it stops (``SessionError/sessionFailed``).
    case inconsistent(String)

    /// Whether trying again later, unchanged, may succeed.
    public var isTransient: Bool {
        switch self {
        case .unavailable: true
        case .transport(let error): error != .cancelled
        case .notConfigured, .invalidDeviceSecret, .rejected, .malformedResponse, .storage, .cancelled, .inconsistent: false
        }
    }

    /// A short explanation without any secret.
    public var description: String {
        switch self {
        case .notConfigured: "the provider profile has no guest bootstrap"
        case .invalidDeviceSecret: "invalid_device_secret: the provider rejected the device secret, also after a fresh bootstrap"
        case .rejected(let status, let error): "the provider refused the bootstrap (HTTP \(status)\(error.map { " \($0)" } ?? ""))"
        case .unavailable(let status, _): "the provider is unavailable (HTTP \(status))"
        case .malformedResponse(let detail): "the bootstrap answer is malformed: \(detail)"
        case .transport(let error): "transport failure: \(error)"
        case .storage(let error): "guest credential storage failure: \(error)"
        case .cancelled: "cancelled"
        case .inconsistent(let what): "internal inconsistency: \(what)"
        }
    }
}
