/// A parsed JSON value, as the strict parser produces it.
///
/// Numbers are kept as `Double`: JOSE only needs them for NumericDate claims, and the parser
/// rejects numbers that a `Double` cannot hold (overflow to infinity).
package enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this is a string.
    package var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    package var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

/// A member name with its hash computed once, for repeated lookups of well-known names.
struct JSONKey: Sendable {
    let name: String
    let bytes: [UInt8]
    let hash: UInt32

    init(_ name: String) {
        self.name = name
        self.bytes = Array(name.utf8)
        self.hash = JSONKey.hash(name.utf8)
    }

    /// FNV-1a over the UTF-8 bytes: cheap enough to compute while the parser scans a name.
    static func hash(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return hash
    }
}

/// A JSON object with unique member names, remembering the order they were written in.
///
/// JOSE objects are small (a header has a handful of members, a claims set a dozen or two), so
/// members live in arrays and are found by scanning precomputed name hashes, which beats a
/// dictionary that rehashes every name. Past ``indexThreshold`` members a dictionary index takes
/// over, so a hostile object with thousands of members still parses in linear time.
package struct JSONObject: Sendable, Equatable {
    static let indexThreshold = 16

    private(set) var names: [String] = []
    private var hashes: [UInt32] = []
    private var values: [JSONValue] = []
    private var index: [String: Int]?

    /// An empty object.
    package init() {}

    init(minimumCapacity: Int) {
        names.reserveCapacity(minimumCapacity)
        hashes.reserveCapacity(minimumCapacity)
        values.reserveCapacity(minimumCapacity)
    }

    /// Adds a member; false when the name is already present (the object is unchanged).
    package mutating func insert(_ name: String, _ value: JSONValue) -> Bool {
        insert(name, hash: JSONKey.hash(name.utf8), value)
    }

    /// Adds a member whose name hash the caller computed with ``JSONKey/hash(_:)``.
    mutating func insert(_ name: String, hash: UInt32, _ value: JSONValue) -> Bool {
        if index != nil {
            guard index?.updateValue(names.count, forKey: name) == nil else { return false }
        } else {
            guard position(of: name, hash: hash) == nil else { return false }
            if names.count + 1 > Self.indexThreshold {
                var built = [String: Int](minimumCapacity: names.count * 2)
                for (position, existing) in names.enumerated() {
                    built[existing] = position
                }
                built[name] = names.count
                index = built
            }
        }
        names.append(name)
        hashes.append(hash)
        values.append(value)
        return true
    }

    private func position(of name: String, hash: UInt32) -> Int? {
        if let index {
            return index[name]
        }
        for position in hashes.indices where hashes[position] == hash && names[position] == name {
            return position
        }
        return nil
    }

    subscript(key: JSONKey) -> JSONValue? {
        position(of: key.name, hash: key.hash).map { values[$0] }
    }

    /// The value of member `name`, if present.
    package subscript(name: String) -> JSONValue? {
        position(of: name, hash: JSONKey.hash(name.utf8)).map { values[$0] }
    }

    /// How many members the object has.
    package var count: Int { names.count }

    /// Members in document order.
    package var orderedMembers: [(name: String, value: JSONValue)] {
        Array(zip(names, values))
    }

    /// Equal when both hold the same names with equal values, in any order.
    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        // Member order does not matter in JSON; names are unique, so compare as maps.
        guard lhs.count == rhs.count else { return false }
        return lhs.names.allSatisfy { lhs[$0] == rhs[$0] }
    }
}
