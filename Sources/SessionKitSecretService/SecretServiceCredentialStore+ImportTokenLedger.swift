#if canImport(CSessionKitSecret)
    import SessionKit
    public import SessionKitCore

    extension SecretServiceCredentialStore: ImportTokenLedgerProviding {
        /// The `account` attribute of the keyring item that holds the ledger, under the store's
        /// `service`.
        public static let importTokenLedgerAccount = "import-tokens"

        /// A ledger in one more keyring item (`service`, ``importTokenLedgerAccount``), beside the
        /// session's credentials, written on the store's queue like them.
        public func makeImportTokenLedger() -> any ImportTokenLedger {
            let item = Item(
                service: service, account: Self.importTokenLedgerAccount, label: "SessionKit used import tokens (\(service))")
            return StoredItemImportTokenLedger(
                read: { () throws(CredentialStoreError) in
                    try await self.perform { () throws(CredentialStoreError) in try SecretServiceItems.read(item) }
                },
                write: { (bytes) throws(CredentialStoreError) in
                    try await self.perform { () throws(CredentialStoreError) in try SecretServiceItems.write(bytes, to: item) }
                })
        }
    }
#endif
