public import SessionKitCore

/// Why an import ended without a document. No case carries the token; the two cases for data
/// that is not Credential Exchange Format at all carry the data itself, as an opaque
/// ``CredentialExchangePayload`` that prints only its size, because the token that fetched it is
/// spent and the exporter cannot be asked again.
@nonexhaustive
public enum CredentialImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The activity did not yield a token.
    case intake(CredentialImportIntakeError)
    /// The token was used before (in this launch or an earlier one): tokens import once.
    case alreadyUsed
    /// The data is in a major format version the app does not declare; `payload` is the data as
    /// it arrived.
    case unsupportedVersion(found: CXFVersion, supported: [CXFVersion], payload: CredentialExchangePayload)
    /// The data is not Credential Exchange Format at all (not a JSON object, no version, no
    /// accounts), or nests deeper than ``CXFDocument/maximumNestingDepth``; `payload` is the data
    /// as it arrived. Data that is the format but breaks some
    /// of its rules is not an error: the rest imports (see ``CXFDocument/decode(_:supportedVersions:)``).
    case invalidData(CXFDecodingError, payload: CredentialExchangePayload)
    /// The importer failed.
    case importerFailed(CredentialImporterError)
    /// Nothing arrived within the coordinator's timeout.
    case timedOut
    /// The caller's task was cancelled.
    case cancelled
    /// The used-token ledger could not be read or written; nothing was imported.
    case storage(CredentialStoreError)
    /// The coordinator was shut down (``CredentialImportCoordinator/shutdown()``): the import was
    /// cancelled, and the coordinator takes no more. A token whose import had begun may be spent.
    case shutDown

    /// The data that arrived, when the import failed because it is not readable as the format.
    public var payload: CredentialExchangePayload? {
        switch self {
        case .unsupportedVersion(_, _, let payload), .invalidData(_, let payload): payload
        default: nil
        }
    }

    /// What went wrong; never the data.
    public var description: String {
        switch self {
        case .intake(let error): "\(error)"
        case .alreadyUsed: "the import token was already used"
        case .unsupportedVersion(let found, let supported, _):
            "the data is in version \(found); supported: \(supported.map(\.description).joined(separator: ", "))"
        case .invalidData(let error, _): "\(error)"
        case .importerFailed(let error): "\(error)"
        case .timedOut: "the import timed out"
        case .cancelled: "the import was cancelled"
        case .storage(let error): "the import token ledger failed: \(error)"
        case .shutDown: "the import coordinator was shut down"
        }
    }
}
