public import SessionKitCore

/// Where a ``ClientRegistration`` is kept durably, in a slot of its own: a registration outlives
/// every session it serves, and signing out never forgets it.
///
/// The registration holds secrets (the client secret, the registration access token), so it is
/// kept where the credentials are: `FileCredentialStore` in its file `registration`, the Keychain
/// store and `SessionKitSecretService`'s keyring store in an item of their service with the account
/// `registration`, `DefaultCredentialStore` in whichever of them it chose, and the test kit's
/// in-memory store in memory.
public protocol ClientRegistrationStore: Sendable {
    /// Reads the registration, if one was stored.
    func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration?
    /// Stores the registration atomically and durably, replacing any earlier one.
    func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError)
    /// Forgets the registration; forgetting a missing one succeeds.
    func removeRegistration() async throws(CredentialStoreError)
}
