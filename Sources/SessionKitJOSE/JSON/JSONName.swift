/// An object member name as it appears in the input, without building a `String`: the byte range
/// between its quotes, its ``JSONKey/hash(_:)``, and its unescaped bytes when it had escapes.
struct JSONName {
    let range: Range<Int>
    let hash: UInt32
    let unescaped: [UInt8]?

    /// Whether this is exactly `key`'s name (compared after unescaping).
    func matches(_ key: JSONKey, in input: UnsafeBufferPointer<UInt8>) -> Bool {
        guard hash == key.hash else { return false }
        return key.bytes.withUnsafeBufferPointer { equalBytes($0, input) }
    }

    /// Whether this is exactly `name` (compared after unescaping).
    func equals(_ name: StaticString, in input: UnsafeBufferPointer<UInt8>) -> Bool {
        equalBytes(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), input)
    }

    func equalBytes(_ other: UnsafeBufferPointer<UInt8>, _ input: UnsafeBufferPointer<UInt8>) -> Bool {
        if let unescaped {
            return unescaped.withUnsafeBufferPointer { Self.equal($0, other) }
        }
        return Self.equal(UnsafeBufferPointer(rebasing: input[range]), other)
    }

    /// Byte equality; names are short, so a plain loop beats the generic `elementsEqual`.
    static func equal(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for offset in 0..<lhs.count where lhs[offset] != rhs[offset] {
            return false
        }
        return true
    }

    func bytes(in input: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        unescaped ?? Array(input[range])
    }
}

/// The names already seen in one object, to reject duplicates without building strings.
///
/// Small objects compare hashes in a list; past ``JSONObject/indexThreshold`` names a set takes
/// over so hostile input stays linear.
struct JSONNameSet {
    private var names: [JSONName]
    private var overflow: Set<[UInt8]>?

    init() {
        // One allocation covers every object below the overflow threshold.
        names = []
        names.reserveCapacity(JSONObject.indexThreshold + 1)
    }

    /// Adds `name`; false when an equal name is already present.
    mutating func insert(_ name: JSONName, in input: UnsafeBufferPointer<UInt8>) -> Bool {
        if overflow != nil {
            return overflow?.insert(name.bytes(in: input)).inserted ?? false
        }
        for existing in names where existing.hash == name.hash {
            let equal: Bool
            if let unescaped = existing.unescaped {
                equal = unescaped.withUnsafeBufferPointer { name.equalBytes($0, input) }
            } else {
                equal = name.equalBytes(UnsafeBufferPointer(rebasing: input[existing.range]), input)
            }
            if equal { return false }
        }
        names.append(name)
        if names.count > JSONObject.indexThreshold {
            overflow = Set(names.map { $0.bytes(in: input) })
            names = []
        }
        return true
    }
}
