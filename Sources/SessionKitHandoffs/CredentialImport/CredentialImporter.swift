public import SessionKitCore

/// Why an importer could not deliver the exported data. Messages name no credential data.
@nonexhaustive
public enum CredentialImporterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The calling task was cancelled.
    case cancelled
    /// The system (or the exporter) refused or failed; the message is its domain and code.
    case failed(String)

    /// What went wrong.
    public var description: String {
        switch self {
        case .cancelled: "the import was cancelled"
        case .failed(let why): "the import failed: \(why)"
        }
    }
}

/// The seam that fetches exported credentials with an import token.
///
/// The Apple adapter wraps `ASCredentialImportManager.importCredentials(token:)`; the test kit's
/// `SimulatedCredentialExporter` serves scripted data. ``CredentialImportCoordinator`` makes sure
/// each token reaches an importer at most once.
public protocol CredentialImporter: Sendable {
    /// Imports the credentials `token` stands for, as Credential Exchange Format JSON.
    func importCredentials(token: CredentialImportToken) async throws(CredentialImporterError) -> CredentialExchangePayload
}
