public import SessionKitCore

extension DeviceKeyManager {
    /// Why no device key could be obtained. No case carries a secret or a response body.
    @nonexhaustive
    public enum ExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
        /// `409 device_conflict`: the stored device uuid belongs to another account.
        case deviceConflict
        /// `401 invalid_device_secret` even after dropping the secret and bootstrapping again.
        case invalidDeviceSecret
        /// `401` for the access token (expired or revoked); a fresh access token may succeed.
        case accessTokenRejected
        /// The provider refused the request for good (another 4xx).
        case rejected(status: Int)
        /// The provider is temporarily unable to answer (408, 429, 5xx); `retryAfter` from `Retry-After`.
        case unavailable(status: Int, retryAfter: Duration?)
        /// A 2xx answer that is not a device-key response.
        case malformedResponse
        /// The request produced no response.
        case transport(TransportError)
        /// The device credential could not be read or written.
        case storage(CredentialStoreError)
        /// The calling task was cancelled, or ``DeviceKeyManager/reset()`` ran while the exchange was under way.
        case cancelled

        /// Whether trying again later, unchanged, may succeed (the retry policy's transient class).
        public var isTransient: Bool {
            switch self {
            case .unavailable: true
            case .transport(let error): error != .cancelled
            case .deviceConflict, .invalidDeviceSecret, .accessTokenRejected, .rejected, .malformedResponse, .storage,
                .cancelled:
                false
            }
        }

        /// A short explanation without any secret.
        public var description: String {
            switch self {
            case .deviceConflict: "device_conflict: the device is registered to another account"
            case .invalidDeviceSecret: "invalid_device_secret: the provider rejected the device secret"
            case .accessTokenRejected: "the provider rejected the access token"
            case .rejected(let status): "the provider refused the exchange (HTTP \(status))"
            case .unavailable(let status, _): "the provider is unavailable (HTTP \(status))"
            case .malformedResponse: "the device-key response is malformed"
            case .transport(let error): "transport failure: \(error)"
            case .storage(let error): "device credential storage failure: \(error)"
            case .cancelled: "cancelled"
            }
        }
    }
}
