import SessionKitJOSE

/// Why a member of a JSON document was rejected, by its path (`accounts[0].items[2].title`).
///
/// Paths name members and list positions only, never values, so the decoders' public errors
/// built from them are safe to log.
enum JSONFieldProblem: Error, Sendable, Equatable {
    case missing(String)
    case wrongType(String)
    case invalidValue(String)
}

/// Typed reads of one JSON object's members, each failure naming the member's path.
///
/// `null` counts as absent for optional members: encoders differ in whether they write it, and
/// it carries no value either way. Members a reader does not ask for are ignored.
struct JSONFields {
    let object: JSONObject
    let path: String

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    /// `value` as an object reader, or a wrong-type problem at `path`.
    static func object(_ value: JSONValue, path: String) throws(JSONFieldProblem) -> JSONFields {
        guard case .object(let object) = value else { throw .wrongType(path) }
        return JSONFields(object, path: path)
    }

    func memberPath(_ name: String) -> String {
        path.isEmpty ? name : path + "." + name
    }

    private func present(_ name: String) -> JSONValue? {
        switch object[name] {
        case nil, .null?: nil
        case let value?: value
        }
    }

    func string(_ name: String) throws(JSONFieldProblem) -> String {
        guard let value = try optionalString(name) else { throw .missing(memberPath(name)) }
        return value
    }

    func optionalString(_ name: String) throws(JSONFieldProblem) -> String? {
        guard let value = present(name) else { return nil }
        guard case .string(let text) = value else { throw .wrongType(memberPath(name)) }
        return text
    }

    func nonEmptyString(_ name: String) throws(JSONFieldProblem) -> String {
        let text = try string(name)
        guard !text.isEmpty else { throw .invalidValue(memberPath(name)) }
        return text
    }

    func optionalBool(_ name: String) throws(JSONFieldProblem) -> Bool? {
        guard let value = present(name) else { return nil }
        guard case .bool(let flag) = value else { throw .wrongType(memberPath(name)) }
        return flag
    }

    /// A whole number in `range`; fractions and numbers outside it are invalid values.
    func integer(_ name: String, in range: ClosedRange<Int64>) throws(JSONFieldProblem) -> Int64 {
        guard let value = try optionalInteger(name, in: range) else { throw .missing(memberPath(name)) }
        return value
    }

    func optionalInteger(_ name: String, in range: ClosedRange<Int64>) throws(JSONFieldProblem) -> Int64? {
        guard let value = present(name) else { return nil }
        guard case .number(let number) = value else { throw .wrongType(memberPath(name)) }
        // `exactly:` refuses fractions and anything outside Int64 instead of trapping.
        guard let integer = Int64(exactly: number), range.contains(integer) else { throw .invalidValue(memberPath(name)) }
        return integer
    }

    func fields(_ name: String) throws(JSONFieldProblem) -> JSONFields {
        guard let fields = try optionalFields(name) else { throw .missing(memberPath(name)) }
        return fields
    }

    func optionalFields(_ name: String) throws(JSONFieldProblem) -> JSONFields? {
        guard let value = present(name) else { return nil }
        return try Self.object(value, path: memberPath(name))
    }

    func array(_ name: String) throws(JSONFieldProblem) -> [JSONValue] {
        guard let elements = try optionalArray(name) else { throw .missing(memberPath(name)) }
        return elements
    }

    func optionalArray(_ name: String) throws(JSONFieldProblem) -> [JSONValue]? {
        guard let value = present(name) else { return nil }
        guard case .array(let elements) = value else { throw .wrongType(memberPath(name)) }
        return elements
    }

    /// Each element of array `name` as an object reader, with its position in the path.
    func objects(_ name: String) throws(JSONFieldProblem) -> [JSONFields] {
        try Self.objects(in: array(name), path: memberPath(name))
    }

    func optionalObjects(_ name: String) throws(JSONFieldProblem) -> [JSONFields] {
        guard let elements = try optionalArray(name) else { return [] }
        return try Self.objects(in: elements, path: memberPath(name))
    }

    func strings(_ name: String) throws(JSONFieldProblem) -> [String] {
        guard let elements = try optionalArray(name) else { return [] }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard case .string(let text) = element else { throw .wrongType("\(memberPath(name))[\(index)]") }
            strings.append(text)
        }
        return strings
    }

    private static func objects(in elements: [JSONValue], path: String) throws(JSONFieldProblem) -> [JSONFields] {
        var readers: [JSONFields] = []
        readers.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            readers.append(try object(element, path: "\(path)[\(index)]"))
        }
        return readers
    }
}
