#if canImport(Security)
    public import SessionKitCore

    // Apple-only glue, not compiled on Linux: the ledger's logic is `StoredItemImportTokenLedger`,
    // tested everywhere over an in-memory item.

    extension KeychainCredentialStore: ImportTokenLedgerProviding {
        /// The Keychain item's account that holds the ledger, in the store's service.
        public static let importTokenLedgerAccount = "import-tokens"

        /// A ledger in one more item of the store's service (account ``importTokenLedgerAccount``),
        /// with the same accessibility and access group as the session's.
        public func makeImportTokenLedger() -> any ImportTokenLedger {
            StoredItemImportTokenLedger(
                read: { () throws(CredentialStoreError) in try await self.loadAuxiliaryItem(account: Self.importTokenLedgerAccount) },
                write: { (bytes) throws(CredentialStoreError) in
                    try await self.saveAuxiliaryItem(bytes, account: Self.importTokenLedgerAccount)
                })
        }
    }
#endif
