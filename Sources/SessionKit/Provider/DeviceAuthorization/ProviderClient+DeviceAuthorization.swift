import Foundation

extension ProviderClient {
    /// The `grant_type` of a device access token request (RFC 8628 §3.4).
    public static let deviceCodeGrantType = "urn:ietf:params:oauth:grant-type:device_code"

    /// Asks for a device code (RFC 8628 §3.1): `POST` to the device authorization endpoint with
    /// `client_id` and `scope` (the configured scopes unless others are given). Returns `nil` when
    /// the provider has no device authorization endpoint.
    ///
    /// - Throws: ``ProviderError`` for a transport failure, an error status (RFC 6749 §5.2 codes
    ///   such as `invalid_client`, `invalid_scope`), or a success body that does not decode.
    public func requestDeviceAuthorization(scopes: [String]? = nil) async throws(ProviderError) -> DeviceAuthorization? {
        guard let endpoint = configuration.deviceAuthorizationEndpoint else { return nil }
        let scope = (scopes ?? configuration.scopes).joined(separator: " ")
        let response = try await send(
            HTTPRequest(
                method: "POST", url: endpoint,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
                body: FormEncoding.encode([("client_id", configuration.clientID), ("scope", scope)])), to: .deviceAuthorization)
        guard response.status == 200 else { throw ProviderError.fromResponse(response, now: now()) }
        return try DeviceAuthorization(decoding: response.body)
    }

    /// Polls the token endpoint once for the device code (RFC 8628 §3.4). Feed the outcome to
    /// `DevicePollPlanner.next(after:elapsed:)` through `DevicePollAnswer.init(_:)`: while the
    /// person has not decided, the provider answers `authorization_pending` or `slow_down`.
    public func pollDeviceToken(_ authorization: DeviceAuthorization) async throws(ProviderError) -> TokenResponse {
        try await tokenRequest([
            ("grant_type", Self.deviceCodeGrantType), ("device_code", authorization.deviceCode.value),
            ("client_id", configuration.clientID),
        ])
    }
}
