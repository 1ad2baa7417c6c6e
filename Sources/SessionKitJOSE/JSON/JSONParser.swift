/// A strict RFC 8259 JSON parser over UTF-8 bytes.
///
/// Stricter than Foundation where JOSE needs it: duplicate member names are rejected (so a
/// header cannot say `alg` twice and mean different things to different parsers), invalid
/// UTF-8 and lone surrogates are rejected, nesting depth is capped, and nothing may follow the
/// value but whitespace.
///
/// Objects and arrays are parsed and skipped with a stack of open containers on the heap, never
/// by recursion, so the depth a caller allows costs no thread stack: input nested 100 000 deep
/// fails at the cap as cheaply as flat input, on any thread.
package struct JSONParser: ~Copyable {
    private let input: UnsafeBufferPointer<UInt8>
    private var index = 0
    private let maximumDepth: Int
    private var depth = 0

    private init(input: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.input = input
        self.maximumDepth = maximumDepth
    }

    /// The depth allowed unless a caller says otherwise. JOSE headers, claims sets, JWKS and the
    /// small documents the handoffs exchange nest a few levels; a tight cap keeps hostile input
    /// from the network cheap to refuse and keeps the recursive work done on parsed values
    /// (comparison, serialization of small documents) shallow. Formats that nest by design
    /// (a credential export's folders) pass their own, higher limit.
    package static let defaultMaximumDepth = 32

    /// Parses exactly one JSON value from `bytes`.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(JOSEError) -> JSONValue {
        var parser = JSONParser(input: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .invalidJSON }
        return value
    }

    /// Parses exactly one JSON value from `bytes`.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(JOSEError) -> JSONValue {
        let result: Result<JSONValue, JOSEError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JOSEError) {
                return .success(try parse(buffer, maximumDepth: maximumDepth))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses `bytes`, which must hold a JSON object.
    package static func parseObject(_ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) throws(JOSEError) -> JSONObject {
        guard case .object(let object) = try parse(bytes, maximumDepth: maximumDepth) else { throw .notAnObject }
        return object
    }

    mutating func skipWhitespace() {
        while index < input.count {
            switch input[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JOSEError) -> JSONValue {
        guard index < input.count else { throw .invalidJSON }
        switch input[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return try parseContainer()
        default: return try parseScalar()
        }
    }

    /// A string, number or literal at `index`.
    private mutating func parseScalar() throws(JOSEError) -> JSONValue {
        switch input[index] {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            return .number(try parseNumber())
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JOSEError) {
        let count = literal.utf8CodeUnitCount
        guard input.count - index >= count else { throw .invalidJSON }
        let start = literal.utf8Start
        for offset in 0..<count where input[index + offset] != start[offset] {
            throw .invalidJSON
        }
        index += count
    }

    private mutating func enter() throws(JOSEError) {
        depth += 1
        guard depth <= maximumDepth else { throw .nestingTooDeep }
    }

    /// The object or array at `index`, with everything inside it. The containers still open are
    /// kept innermost last: `open` says which kind each is, `objects` and `arrays` hold their
    /// members so far, and `names` the name of each open object's member whose value is being
    /// read. A finished value goes into the innermost open container, which may finish in turn.
    private mutating func parseContainer() throws(JOSEError) -> JSONValue {
        var open: [ContainerKind] = []
        var objects: [JSONObject] = []
        var names: [(name: String, hash: UInt32)] = []
        var arrays: [[JSONValue]] = []
        let outerDepth = depth
        defer { depth = outerDepth }
        values: while true {
            guard index < input.count else { throw .invalidJSON }
            var value: JSONValue
            switch input[index] {
            case UInt8(ascii: "{"):
                try enter()
                index += 1
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: "}") else {
                    open.append(.object)
                    objects.append(JSONObject(minimumCapacity: 8))
                    names.append(try parseMemberName())
                    continue values
                }
                index += 1
                depth -= 1
                value = .object(JSONObject())
            case UInt8(ascii: "["):
                try enter()
                index += 1
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: "]") else {
                    open.append(.array)
                    arrays.append([])
                    continue values
                }
                index += 1
                depth -= 1
                value = .array([])
            default:
                value = try parseScalar()
            }
            while let kind = open.last {
                switch kind {
                case .object:
                    let member = names.removeLast()
                    guard objects[objects.count - 1].insert(member.name, hash: member.hash, value) else { throw .duplicateMember }
                case .array:
                    arrays[arrays.count - 1].append(value)
                }
                skipWhitespace()
                guard index < input.count else { throw .invalidJSON }
                if input[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if kind == .object { names.append(try parseMemberName()) }
                    continue values
                }
                guard input[index] == kind.closing else { throw .invalidJSON }
                index += 1
                depth -= 1
                open.removeLast()
                value = kind == .object ? .object(objects.removeLast()) : .array(arrays.removeLast())
            }
            return value
        }
    }

    /// A member's name and the colon after it, leaving `index` at its value.
    private mutating func parseMemberName() throws(JOSEError) -> (name: String, hash: UInt32) {
        skipWhitespace()
        guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw .invalidJSON }
        let name = try parseName()
        skipWhitespace()
        guard index < input.count, input[index] == UInt8(ascii: ":") else { throw .invalidJSON }
        index += 1
        skipWhitespace()
        return name
    }

    private mutating func parseNumber() throws(JOSEError) -> Double {
        let start = index
        if index < input.count, input[index] == UInt8(ascii: "-") { index += 1 }
        guard index < input.count else { throw .invalidJSON }
        var isInteger = true
        if input[index] == UInt8(ascii: "0") {
            index += 1
        } else if isDigit(input[index]) {
            while index < input.count, isDigit(input[index]) { index += 1 }
        } else {
            throw .invalidJSON
        }
        if index < input.count, input[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < input.count, isDigit(input[index]) else { throw .invalidJSON }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < input.count, input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard index < input.count, isDigit(input[index]) else { throw .invalidJSON }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        let text = UnsafeBufferPointer(rebasing: input[start..<index])
        // Small integers (every NumericDate) are exact in a Double; skip the text round trip.
        if isInteger, text.count <= 16 {
            var value: Int64 = 0
            var negative = false
            for byte in text {
                if byte == UInt8(ascii: "-") {
                    negative = true
                } else {
                    value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                }
            }
            return Double(negative ? -value : value)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else {
            throw .invalidJSON
        }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// A member name and its ``JSONKey/hash(_:)``, hashed while scanning when it has no escapes.
    private mutating func parseName() throws(JOSEError) -> (String, UInt32) {
        var scan = index + 1
        var hash: UInt32 = 2_166_136_261
        while scan < input.count {
            let byte = input[scan]
            if byte == UInt8(ascii: "\"") {
                let name = String(decoding: UnsafeBufferPointer(rebasing: input[(index + 1)..<scan]), as: UTF8.self)
                index = scan + 1
                return (name, hash)
            }
            // Anything but plain printable ASCII takes the general path, which validates it.
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            hash = (hash ^ UInt32(byte)) &* 16_777_619
            scan += 1
        }
        let name = try parseString()
        return (name, JSONKey.hash(name.utf8))
    }

    private mutating func parseString() throws(JOSEError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, so the bytes between the quotes are the string.
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<index]), as: UTF8.self)
                index += 1
                return text
            } else if byte == UInt8(ascii: "\\") {
                break
            } else if byte < 0x20 {
                throw .invalidJSON
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        guard index < input.count else { throw .invalidJSON }
        var bytes = Array(input[start..<index])
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return String(decoding: bytes, as: UTF8.self)
            } else if byte == UInt8(ascii: "\\") {
                try appendEscape(to: &bytes)
            } else if byte < 0x20 {
                throw .invalidJSON
            } else if byte < 0x80 {
                bytes.append(byte)
                index += 1
            } else {
                let sequenceStart = index
                try skipUTF8Sequence()
                bytes.append(contentsOf: input[sequenceStart..<index])
            }
        }
        throw .invalidJSON
    }

    private mutating func appendEscape(to bytes: inout [UInt8]) throws(JOSEError) {
        index += 1  // backslash
        guard index < input.count else { throw .invalidJSON }
        let escape = input[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(escape)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if scalar >= 0xD800, scalar < 0xDC00 {
                // A high surrogate must be followed by an escaped low surrogate.
                guard input.count - index >= 6, input[index] == UInt8(ascii: "\\"),
                    input[index + 1] == UInt8(ascii: "u")
                else { throw .invalidJSON }
                index += 2
                let low = try parseHex4()
                guard low >= 0xDC00, low < 0xE000 else { throw .invalidJSON }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00, scalar < 0xE000 {
                throw .invalidJSON
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw .invalidJSON }
            bytes.append(contentsOf: unicode.utf8)
        default:
            throw .invalidJSON
        }
    }

    private mutating func parseHex4() throws(JOSEError) -> UInt32 {
        guard input.count - index >= 4 else { throw .invalidJSON }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = input[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw .invalidJSON
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Steps over one well-formed multi-byte UTF-8 sequence (RFC 3629: no overlong forms, no
    /// surrogates, nothing above U+10FFFF).
    private mutating func skipUTF8Sequence() throws(JOSEError) {
        let lead = input[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            upper = 0x9F
        case 0xF0:
            length = 4
            lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            upper = 0x8F
        default: throw .invalidJSON
        }
        guard input.count - index >= length else { throw .invalidJSON }
        let second = input[index + 1]
        guard second >= lower, second <= upper else { throw .invalidJSON }
        for offset in 2..<length where input[index + offset] & 0xC0 != 0x80 {
            throw .invalidJSON
        }
        index += length
    }
}

// MARK: - Scanning without building values

extension JSONParser {
    /// Walks the JSON object in `bytes`, calling `visit` once per member with its name; `visit`
    /// must consume the value, with ``parseValue()`` or ``skipValue()``. The same strictness as
    /// ``parse(_:maximumDepth:)`` applies everywhere, including duplicate names, but only the values
    /// a visitor parses are built — the fast path for claims sets and headers.
    static func scanObject(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int,
        _ visit: (JSONName, inout JSONParser) throws(JOSEError) -> Void
    ) throws(JOSEError) {
        var parser = JSONParser(input: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        guard parser.index < bytes.count, bytes[parser.index] == UInt8(ascii: "{") else {
            // Parse anyway so that broken JSON reports invalidJSON rather than notAnObject.
            _ = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.index == bytes.count else { throw .invalidJSON }
            throw .notAnObject
        }
        try parser.scanMembers(visit)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .invalidJSON }
    }

    /// The input, for a visitor matching names with ``JSONName/matches(_:in:)``.
    var buffer: UnsafeBufferPointer<UInt8> { input }

    private mutating func scanMembers(_ visit: (JSONName, inout JSONParser) throws(JOSEError) -> Void)
        throws(JOSEError)
    {
        try enter()
        defer { depth -= 1 }
        index += 1  // "{"
        var seen = JSONNameSet()
        skipWhitespace()
        if index < input.count, input[index] == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw .invalidJSON }
            let name = try scanName()
            guard seen.insert(name, in: input) else { throw .duplicateMember }
            skipWhitespace()
            guard index < input.count, input[index] == UInt8(ascii: ":") else { throw .invalidJSON }
            index += 1
            skipWhitespace()
            let valueStart = index
            try visit(name, &self)
            // A visitor must consume the value; one that did not would misread what follows.
            guard index > valueStart else { throw .invalidJSON }
            skipWhitespace()
            guard index < input.count else { throw .invalidJSON }
            switch input[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default:
                throw .invalidJSON
            }
        }
    }

    private mutating func scanName() throws(JOSEError) -> JSONName {
        let start = index + 1
        var scan = start
        var hash: UInt32 = 2_166_136_261
        while scan < input.count {
            let byte = input[scan]
            if byte == UInt8(ascii: "\"") {
                index = scan + 1
                return JSONName(range: start..<scan, hash: hash, unescaped: nil)
            }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { break }
            hash = (hash ^ UInt32(byte)) &* 16_777_619
            scan += 1
        }
        let name = Array(try parseString().utf8)
        return JSONName(range: start..<(index - 1), hash: JSONKey.hash(name), unescaped: name)
    }

    /// Consumes one value, checking it as strictly as ``parseValue()`` would, without building it.
    mutating func skipValue() throws(JOSEError) {
        guard index < input.count else { throw .invalidJSON }
        switch input[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["): try skipContainer()
        default: try skipScalar()
        }
    }

    private mutating func skipScalar() throws(JOSEError) {
        switch input[index] {
        case UInt8(ascii: "\""):
            try skipString()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
        case UInt8(ascii: "f"):
            try expectLiteral("false")
        case UInt8(ascii: "n"):
            try expectLiteral("null")
        default:
            _ = try parseNumber()
        }
    }

    /// Steps over the object or array at `index` with a stack of the containers still open (and
    /// the names seen in each open object), like ``parseContainer()``.
    private mutating func skipContainer() throws(JOSEError) {
        var open: [ContainerKind] = []
        var seen: [JSONNameSet] = []
        let outerDepth = depth
        defer { depth = outerDepth }
        values: while true {
            guard index < input.count else { throw .invalidJSON }
            switch input[index] {
            case UInt8(ascii: "{"):
                try enter()
                index += 1
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: "}") else {
                    open.append(.object)
                    seen.append(JSONNameSet())
                    try skipMemberName(into: &seen[seen.count - 1])
                    continue values
                }
                index += 1
                depth -= 1
            case UInt8(ascii: "["):
                try enter()
                index += 1
                skipWhitespace()
                guard index < input.count, input[index] == UInt8(ascii: "]") else {
                    open.append(.array)
                    continue values
                }
                index += 1
                depth -= 1
            default:
                try skipScalar()
            }
            while let kind = open.last {
                skipWhitespace()
                guard index < input.count else { throw .invalidJSON }
                if input[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if kind == .object { try skipMemberName(into: &seen[seen.count - 1]) }
                    continue values
                }
                guard input[index] == kind.closing else { throw .invalidJSON }
                index += 1
                depth -= 1
                open.removeLast()
                if kind == .object { seen.removeLast() }
            }
            return
        }
    }

    /// A member's name, refused when `seen` has it already, and the colon after it.
    private mutating func skipMemberName(into seen: inout JSONNameSet) throws(JOSEError) {
        skipWhitespace()
        guard index < input.count, input[index] == UInt8(ascii: "\"") else { throw .invalidJSON }
        let name = try scanName()
        guard seen.insert(name, in: input) else { throw .duplicateMember }
        skipWhitespace()
        guard index < input.count, input[index] == UInt8(ascii: ":") else { throw .invalidJSON }
        index += 1
        skipWhitespace()
    }

    private mutating func skipString() throws(JOSEError) {
        index += 1  // opening quote
        var scratch: [UInt8] = []
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return
            } else if byte == UInt8(ascii: "\\") {
                // Escapes are rare in skipped values; validating them through the decoder keeps
                // one definition of what is allowed.
                try appendEscape(to: &scratch)
                scratch.removeAll(keepingCapacity: true)
            } else if byte < 0x20 {
                throw .invalidJSON
            } else if byte < 0x80 {
                index += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        throw .invalidJSON
    }
}

/// Which kind of container a parser has open.
private enum ContainerKind {
    case object
    case array

    var closing: UInt8 {
        switch self {
        case .object: UInt8(ascii: "}")
        case .array: UInt8(ascii: "]")
        }
    }
}
