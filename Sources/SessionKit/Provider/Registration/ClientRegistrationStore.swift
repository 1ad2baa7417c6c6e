public import SessionKitCore

/// Where a ``ClientRegistration`` is kept durably, in a slot of its own: a registration outlives
/// every session it serves, and signing out never forgets it.
///
/// `FileCredentialStore` keeps it (file `registration`), and so does the test kit's in-memory
/// store.
public protocol ClientRegistrationStore: Sendable {
    /// Reads the registration, if one was stored.
    func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration?
    /// Stores the registration atomically and durably, replacing any earlier one.
    func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError)
    /// Forgets the registration; forgetting a missing one succeeds.
    func removeRegistration() async throws(CredentialStoreError)
}
