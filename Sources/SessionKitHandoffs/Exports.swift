// SessionKitHandoffs re-exports SessionKitCore: `Secret`, `CredentialStoreError`,
// `CredentialImportToken` and the import token ledgers appear in its public API (credential
// references, `CredentialImportError.storage`, the coordinator's ledger), so an app that imports
// SessionKitHandoffs sees them without a second import, as it did before they moved. The files of
// this module still import SessionKitCore themselves.
@_exported public import SessionKitCore
