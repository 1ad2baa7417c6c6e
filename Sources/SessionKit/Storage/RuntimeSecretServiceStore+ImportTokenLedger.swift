package import SessionKitCore

extension RuntimeSecretServiceStore: ImportTokenLedgerProviding {
    /// The `account` attribute of the keyring item that holds the ledger, under the store's `service`.
    package static let importTokenLedgerAccount = "import-tokens"

    /// The keyring item of the used-token ledger: (`service`, `importTokenLedgerAccount`).
    package var importTokenLedger: RuntimeSecretService.Item {
        .init(service: service, account: Self.importTokenLedgerAccount, label: "SessionKit used import tokens (\(service))")
    }

    /// A ledger in one more keyring item beside the session's credentials, read and written on the
    /// store's queue like them.
    package func makeImportTokenLedger() -> any ImportTokenLedger {
        let item = importTokenLedger
        return StoredItemImportTokenLedger(
            read: { () throws(CredentialStoreError) in
                try await self.perform { () throws(CredentialStoreError) in try RuntimeSecretService.read(item) }
            },
            write: { (bytes) throws(CredentialStoreError) in
                try await self.perform { () throws(CredentialStoreError) in try RuntimeSecretService.write(bytes, to: item) }
            })
    }
}
