#if !canImport(Security)
    public import SessionKit
    public import SessionKitCore

    extension SecretServiceCredentialStore: ClientRegistrationStore {
        /// The `account` attribute of the keyring item that holds the client registration, under
        /// the store's `service`.
        public static var registrationAccount: String { RuntimeSecretServiceStore.registrationAccount }

        /// Reads the client registration from its item (`service`, ``registrationAccount``), or nil
        /// when none was saved.
        ///
        /// The item holds the same framed bytes as `FileCredentialStore`'s `registration` file: a
        /// damaged item, or one from a newer build, is a typed error.
        public func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
            try await keyring.loadRegistration()
        }

        /// Replaces the client registration item in one Secret Service call; the credential record
        /// is not touched.
        public func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
            try await keyring.saveRegistration(registration)
        }

        /// Deletes the client registration item; deleting a missing one succeeds.
        public func removeRegistration() async throws(CredentialStoreError) {
            try await keyring.removeRegistration()
        }
    }
#endif
