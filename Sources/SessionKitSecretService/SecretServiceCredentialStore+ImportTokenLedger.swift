#if !canImport(Security)
    import SessionKit
    public import SessionKitCore

    extension SecretServiceCredentialStore: ImportTokenLedgerProviding {
        /// The `account` attribute of the keyring item that holds the ledger, under the store's
        /// `service`.
        public static var importTokenLedgerAccount: String { RuntimeSecretServiceStore.importTokenLedgerAccount }

        /// A ledger in one more keyring item (`service`, ``importTokenLedgerAccount``), beside the
        /// session's credentials, written on the store's queue like them.
        public func makeImportTokenLedger() -> any ImportTokenLedger {
            keyring.makeImportTokenLedger()
        }
    }
#endif
