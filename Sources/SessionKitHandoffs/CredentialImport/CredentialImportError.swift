import SessionKit

/// Why an import ended without credentials. No case carries the token or credential data.
public enum CredentialImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The activity did not yield a token.
    case intake(CredentialImportIntakeError)
    /// The token was used before (in this launch or an earlier one): tokens import once.
    case alreadyUsed
    /// The data is in a format version the app does not declare.
    case unsupportedVersion(found: CXFVersion, supported: [CXFVersion])
    /// The data is not valid Credential Exchange Format.
    case invalidData(CXFDecodingError)
    /// The importer failed.
    case importerFailed(CredentialImporterError)
    /// Nothing arrived within the coordinator's timeout.
    case timedOut
    /// The caller's task was cancelled.
    case cancelled
    /// The used-token ledger could not be read or written; nothing was imported.
    case storage(CredentialStoreError)

    /// What went wrong.
    public var description: String {
        switch self {
        case .intake(let error): "\(error)"
        case .alreadyUsed: "the import token was already used"
        case .unsupportedVersion(let found, let supported):
            "the data is in version \(found); supported: \(supported.map(\.description).joined(separator: ", "))"
        case .invalidData(let error): "\(error)"
        case .importerFailed(let error): "\(error)"
        case .timedOut: "the import timed out"
        case .cancelled: "the import was cancelled"
        case .storage(let error): "the import token ledger failed: \(error)"
        }
    }
}
