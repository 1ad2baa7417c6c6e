public import SessionKitCore

extension DeviceKeyManager: DeviceKeyProviding {
    /// The device key as the disconnect call presents it; exchange failures are reported in the
    /// provider's error classes so the retry policy treats them like any other provider answer.
    public func disconnectKey(accessToken: Secret) async throws(ProviderError) -> Secret {
        do {
            return try await deviceKey(accessToken: accessToken).value
        } catch {
            throw error.providerError
        }
    }

    /// Ends the manager's exchanges (``DeviceKeyManager/shutdown()``).
    public func shutdown() async {
        await endWork()
    }
}

extension DeviceKeyManager.ExchangeError {
    /// The same failure in ``ProviderError``'s classes.
    var providerError: ProviderError {
        switch self {
        case .transport(let error): .transport(error)
        case .unavailable(let status, let retryAfter):
            .http(status: status, error: nil, retryAfterSeconds: retryAfter.map { Double($0.components.seconds) }, excerpt: "")
        case .deviceConflict: .http(status: 409, error: "device_conflict", retryAfterSeconds: nil, excerpt: "")
        case .invalidDeviceSecret: .http(status: 401, error: "invalid_device_secret", retryAfterSeconds: nil, excerpt: "")
        case .accessTokenRejected: .http(status: 401, error: nil, retryAfterSeconds: nil, excerpt: "")
        case .rejected(let status): .http(status: status, error: nil, retryAfterSeconds: nil, excerpt: "")
        case .malformedResponse: .invalidResponse("device key response does not decode")
        case .storage: .invalidResponse("device credential store failed")
        case .cancelled: .transport(.cancelled)
        }
    }
}
