/// One import a ``SimulatedCredentialExporter`` was asked for, without the token.
public struct SimulatedCredentialExporterLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// The number of the offered token (1 for the first ``SimulatedCredentialExporter/offer(_:)``),
    /// or `nil` for a token it never offered.
    public var tokenNumber: Int?
    /// What the exporter did.
    public var outcome: String

    /// Creates a log entry.
    public init(tokenNumber: Int?, outcome: String) {
        self.tokenNumber = tokenNumber
        self.outcome = outcome
    }

    /// One line, e.g. `token #1: serve 2048 bytes`.
    public var description: String {
        "token \(tokenNumber.map { "#\($0)" } ?? "unknown"): \(outcome)"
    }
}
