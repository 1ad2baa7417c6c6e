/// What a ``CredentialImportCoordinator`` tells the app, in order: counts and causes, never a
/// token or credential.
@nonexhaustive
public enum CredentialImportEvent: Sendable, Equatable, CustomStringConvertible {
    /// An import began.
    case started
    /// A second delivery of the token being imported joined that import.
    case joined
    /// Another token's import waits for the one in progress.
    case queued
    /// The import succeeded.
    case imported(CXFSummary)
    /// A token was refused because it was used before.
    case alreadyUsed
    /// The import failed.
    case failed(CredentialImportError)
    /// Every caller of an import cancelled, so the import was abandoned.
    case abandoned

    /// A one-line summary.
    public var description: String {
        switch self {
        case .started: "import started"
        case .joined: "joined the import in progress"
        case .queued: "queued behind the import in progress"
        case .imported(let summary): "imported \(summary)"
        case .alreadyUsed: "refused: the token was already used"
        case .failed(let error): "failed: \(error)"
        case .abandoned: "abandoned: every caller cancelled"
        }
    }
}
