package import SessionKitCore

extension RuntimeSecretServiceStore: ClientRegistrationStore {
    /// The `account` attribute of the keyring item that holds the client registration, under the
    /// store's `service`.
    package static let registrationAccount = "registration"

    /// The keyring item of the client registration: (`service`, ``registrationAccount``), apart
    /// from the credential record, so signing out never touches it.
    package var registration: RuntimeSecretService.Item {
        .init(service: service, account: Self.registrationAccount, label: "SessionKit client registration (\(service))")
    }

    /// The registration item's store, read and written on this store's queue like the other items.
    var registrationItem: StoredItemRegistrationStore {
        let item = registration
        return StoredItemRegistrationStore(
            read: { () throws(CredentialStoreError) in
                try await self.perform { () throws(CredentialStoreError) in try RuntimeSecretService.read(item) }
            },
            write: { (bytes) throws(CredentialStoreError) in
                try await self.perform { () throws(CredentialStoreError) in try RuntimeSecretService.write(bytes, to: item) }
            },
            remove: { () throws(CredentialStoreError) in
                try await self.perform { () throws(CredentialStoreError) in try RuntimeSecretService.remove(item) }
            })
    }

    /// Reads the client registration, or nil when none was saved.
    package func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
        try await registrationItem.loadRegistration()
    }

    /// Replaces the client registration item in one call.
    package func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
        try await registrationItem.saveRegistration(registration)
    }

    /// Deletes the client registration item; deleting a missing one succeeds.
    package func removeRegistration() async throws(CredentialStoreError) {
        try await registrationItem.removeRegistration()
    }
}
