public import SessionKitCore

/// Obtains the device-bound key that the disconnect call presents (1pass.dev).
public protocol DeviceKeyProviding: Sendable {
    /// A device key for the account that `accessToken` belongs to; failures in the provider's
    /// error classes, so the session classifies them like any other provider answer.
    func disconnectKey(accessToken: Secret) async throws(ProviderError) -> Secret
    /// Forgets the device credential (after an account deletion).
    func reset() async throws
    /// Ends the source's work: called by the session's ``Session/shutdown()``, which returns once
    /// this has. The default does nothing, for a source that starts no work of its own.
    func shutdown() async
}

extension DeviceKeyProviding {
    /// Nothing to end.
    public func shutdown() async {}
}
