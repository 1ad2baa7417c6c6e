import SessionKitHandoffs

/// One access request a ``SimulatedOnePassword`` was shown, without any secret.
public struct SimulatedOnePasswordLogEntry: Sendable, Hashable, CustomStringConvertible {
    /// The type identifier the request was attached under.
    public var typeIdentifier: String
    /// The request's `version`, as 1Password read it; `nil` when it could not read one.
    public var version: Int?
    /// Whether the reference was byte for byte the one of the previous request; `nil` for the
    /// first request. (The log never holds the reference itself.)
    public var sameReferenceAsPrevious: Bool?
    /// What the simulator answered.
    public var answer: String

    /// Creates a log entry.
    public init(typeIdentifier: String, version: Int?, sameReferenceAsPrevious: Bool?, answer: String) {
        self.typeIdentifier = typeIdentifier
        self.version = version
        self.sameReferenceAsPrevious = sameReferenceAsPrevious
        self.answer = answer
    }

    /// One line, e.g. `com.1password.access-request v1, same reference: yes → decline`.
    public var description: String {
        let same = sameReferenceAsPrevious.map { $0 ? "yes" : "no" } ?? "first"
        return "\(typeIdentifier) v\(version.map(String.init) ?? "?"), same reference: \(same) → \(answer)"
    }
}
