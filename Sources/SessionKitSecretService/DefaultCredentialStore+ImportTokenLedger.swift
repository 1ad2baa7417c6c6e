import SessionKit
public import SessionKitCore

extension DefaultCredentialStore: ImportTokenLedgerProviding {
    /// A ledger beside the chosen store's credentials: an item in the Keychain or the keyring, or
    /// the file `import-tokens` in the file store's directory.
    public func makeImportTokenLedger() -> any ImportTokenLedger {
        guard let provider = store as? any ImportTokenLedgerProviding else {
            // Every store `make(service:directory:)` chooses can keep a ledger.
            preconditionFailure("the chosen credential store cannot keep an import token ledger")
        }
        return provider.makeImportTokenLedger()
    }
}
