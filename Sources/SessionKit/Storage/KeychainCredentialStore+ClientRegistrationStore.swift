#if canImport(Security)
    public import SessionKitCore

    // Apple-only glue, not compiled on Linux: what is decided about a registration item is
    // `StoredItemRegistrationStore`, tested everywhere over an in-memory item.

    extension KeychainCredentialStore: ClientRegistrationStore {
        /// The Keychain item's account that holds the client registration, in the store's service.
        public static let registrationAccount = "registration"

        /// The registration item's store: one more item of the store's service (account
        /// ``registrationAccount``), with the credential record's accessibility and access group.
        private var registrationItem: StoredItemRegistrationStore {
            let account = Self.registrationAccount
            return StoredItemRegistrationStore(
                read: { () throws(CredentialStoreError) in try await self.loadAuxiliaryItem(account: account) },
                write: { (bytes) throws(CredentialStoreError) in try await self.saveAuxiliaryItem(bytes, account: account) },
                remove: { () throws(CredentialStoreError) in try await self.removeAuxiliaryItem(account: account) })
        }

        /// Reads the client registration, or nil when none was saved.
        public func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
            try await registrationItem.loadRegistration()
        }

        /// Replaces the client registration item; the credential record is not touched.
        public func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
            try await registrationItem.saveRegistration(registration)
        }

        /// Deletes the client registration item; deleting a missing one succeeds.
        public func removeRegistration() async throws(CredentialStoreError) {
            try await registrationItem.removeRegistration()
        }
    }
#endif
