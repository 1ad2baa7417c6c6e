public import SessionKitCore

/// An account, item or credential that does not conform to the format, kept whole so nothing is
/// lost: where it was, why it was refused, and its JSON.
///
/// The JSON may hold passwords and keys, so it is a `Secret`; the rest is safe to log.
public struct CXFUndecoded: Sendable, Hashable, CustomStringConvertible {
    /// Where it was, such as `accounts[0].items[3]`.
    public var path: String
    /// Its `type`, for a credential that names one.
    public var type: String?
    /// The first rule it breaks, by member path.
    public var problem: CXFDecodingError
    /// The whole object (or value) as compact JSON text.
    public var json: Secret

    /// Creates a record of an undecoded entry.
    public init(path: String, type: String? = nil, problem: CXFDecodingError, json: Secret) {
        self.path = path
        self.type = type
        self.problem = problem
        self.json = json
    }

    /// Path, type and problem; never the JSON.
    public var description: String {
        "CXFUndecoded(\(path)\(type.map { ", type: \($0)" } ?? ""): \(problem))"
    }
}
