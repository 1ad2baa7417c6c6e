public import SessionKit
public import SessionKitCore

extension DefaultCredentialStore: ClientRegistrationStore {
    /// Reads the client registration from the chosen store: an item in the Keychain or the keyring,
    /// or the file `registration` in the file store's directory.
    public func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
        try await registrations().loadRegistration()
    }

    /// Replaces the client registration in the chosen store.
    public func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
        try await registrations().saveRegistration(registration)
    }

    /// Deletes the client registration from the chosen store; deleting a missing one succeeds.
    public func removeRegistration() async throws(CredentialStoreError) {
        try await registrations().removeRegistration()
    }

    private func registrations() throws(CredentialStoreError) -> any ClientRegistrationStore {
        guard let registrations = store as? any ClientRegistrationStore else {
            // Every store `make(service:directory:)` chooses keeps a registration; were one added
            // that cannot, registering fails with a storage error rather than the app stopping.
            throw .ioFailure("the chosen credential store cannot keep a client registration")
        }
        return registrations
    }
}
