/// A credential store that can keep the used-token ledger of a credential import beside the
/// session's credentials, in the same kind of storage.
///
/// Every store SessionKit ships conforms: `FileCredentialStore` (the file `import-tokens` in its
/// directory), `KeychainCredentialStore` (one more generic-password item, account
/// `import-tokens`, in the store's service), `SecretServiceCredentialStore` (one more keyring item,
/// account `import-tokens`) and `DefaultCredentialStore` (whichever of them it chose), so the
/// ledger is chosen the way the default store is:
///
/// ```swift
/// let coordinator = CredentialImportCoordinator(
///     importer: importer, ledger: store.makeImportTokenLedger(), intake: intake, clock: ContinuousClock())
/// ```
public protocol ImportTokenLedgerProviding: Sendable {
    /// A ledger kept beside this store's credentials.
    ///
    /// Use one ledger per store in a process: the ledger serializes its own reads and writes.
    func makeImportTokenLedger() -> any ImportTokenLedger
}
