/// A parsed JSON value, as the strict parser produces it.
///
/// Numbers are kept as `Double`: JOSE only needs them for NumericDate claims, and the parser
/// rejects numbers that a `Double` cannot hold (overflow to infinity).
enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

/// A JSON object with unique member names, remembering the order they were written in.
struct JSONObject: Sendable, Equatable {
    private(set) var names: [String] = []
    private var members: [String: JSONValue] = [:]

    init() {}

    init(minimumCapacity: Int) {
        names.reserveCapacity(minimumCapacity)
        members.reserveCapacity(minimumCapacity)
    }

    /// Adds a member; false when the name is already present (the object is unchanged).
    mutating func insert(_ name: String, _ value: JSONValue) -> Bool {
        guard members.updateValue(value, forKey: name) == nil else { return false }
        names.append(name)
        return true
    }

    subscript(name: String) -> JSONValue? {
        members[name]
    }

    var count: Int { names.count }

    /// Members in document order.
    var orderedMembers: [(name: String, value: JSONValue)] {
        names.map { ($0, members[$0] ?? .null) }
    }
}
