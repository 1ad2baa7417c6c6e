public import SessionKitCore

extension FileCredentialStore: ImportTokenLedgerProviding {
    /// A `FileImportTokenLedger` in the store's directory.
    public func makeImportTokenLedger() -> any ImportTokenLedger {
        FileImportTokenLedger(besides: self)
    }
}
