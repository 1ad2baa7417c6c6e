// SessionKit re-exports SessionKitCore: `Secret`, `CredentialStoreError` and the credential-import
// token ledgers appear in SessionKit's public API (`SessionError.storage`, every token, the stores'
// `makeImportTokenLedger()`), so an app that imports SessionKit sees them without a second import,
// as it did before they moved. The files of this module still import SessionKitCore themselves.
@_exported public import SessionKitCore
