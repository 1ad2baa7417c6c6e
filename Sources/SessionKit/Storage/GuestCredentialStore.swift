public import SessionKitCore

/// Storage for the guest credential, in a namespace of its own: never beside the refresh token,
/// nor beside the signed-in session's device credential.
///
/// Every store SessionKit ships keeps it: `FileCredentialStore` (file `guest`),
/// `KeychainCredentialStore` and `SecretServiceCredentialStore` (an item of service
/// `guestService`), and the test kit's in-memory store.
public protocol GuestCredentialStore: Sendable {
    /// Reads the guest credential, if one was stored.
    func loadGuest() async throws(CredentialStoreError) -> GuestCredential?
    /// Stores the guest credential atomically and durably.
    func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError)
    /// Forgets the guest credential (sign-out of a guest, or a promotion to a signed-in account);
    /// forgetting a missing one succeeds.
    func removeGuest() async throws(CredentialStoreError)
}
