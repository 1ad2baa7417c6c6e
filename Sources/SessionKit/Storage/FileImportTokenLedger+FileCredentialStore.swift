public import SessionKitCore

extension FileImportTokenLedger {
    /// A ledger in the same directory as `store`, beside its credentials.
    public convenience init(besides store: FileCredentialStore, capacity: Int = defaultCapacity) {
        self.init(directory: store.directory, capacity: capacity)
    }
}
