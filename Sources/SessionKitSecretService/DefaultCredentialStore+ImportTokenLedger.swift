import SessionKit
public import SessionKitCore

extension DefaultCredentialStore: ImportTokenLedgerProviding {
    /// A ledger beside the chosen store's credentials: an item in the Keychain or the keyring, or
    /// the file `import-tokens` in the file store's directory.
    public func makeImportTokenLedger() -> any ImportTokenLedger {
        guard let provider = store as? any ImportTokenLedgerProviding else {
            // Every store `make(service:directory:)` chooses can keep a ledger; were one added that
            // cannot, an import is refused with a storage error rather than the app stopped.
            return UnavailableImportTokenLedger()
        }
        return provider.makeImportTokenLedger()
    }
}

/// A ledger for a store that cannot keep one: every call fails, so no import token is used
/// without a durable record of it.
struct UnavailableImportTokenLedger: ImportTokenLedger {
    func markUsed(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        throw .ioFailure("the chosen credential store cannot keep an import token ledger")
    }

    func contains(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        throw .ioFailure("the chosen credential store cannot keep an import token ledger")
    }
}
