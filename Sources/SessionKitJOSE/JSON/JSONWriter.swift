/// Compact JSON serialization for the few documents this module writes: JOSE headers, JWKS,
/// and the re-encoded header and claims a debugging tool prints. The `idtoken` CLI quotes its
/// output strings with it too, so there is one JSON string escaper in the package.
package enum JSONWriter {
    /// `value` as compact JSON text.
    package static func serialize(_ value: JSONValue) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    /// Writes `value` with a stack of the containers still open, not by recursion, so a value as
    /// deep as a parser allowed is written on any thread.
    static func write(_ value: JSONValue, to output: inout String) {
        var open: [OpenContainer] = []
        var next = value
        values: while true {
            switch next {
            case .null: output += "null"
            case .bool(let flag): output += flag ? "true" : "false"
            case .number(let number): output += format(number)
            case .string(let text): writeString(text, to: &output)
            case .array(let elements):
                output += "["
                if let first = elements.first {
                    open.append(OpenContainer(elements: elements))
                    next = first
                    continue values
                }
                output += "]"
            case .object(let object):
                output += "{"
                let members = object.orderedMembers
                if let first = members.first {
                    open.append(OpenContainer(members: members))
                    writeString(first.name, to: &output)
                    output += ":"
                    next = first.value
                    continue values
                }
                output += "}"
            }
            while let container = open.last {
                let following = container.current + 1
                if following < container.count {
                    output += ","
                    open[open.count - 1].current = following
                    if let members = container.members {
                        writeString(members[following].name, to: &output)
                        output += ":"
                        next = members[following].value
                    } else {
                        next = container.elements[following]
                    }
                    continue values
                }
                output += container.members == nil ? "]" : "}"
                open.removeLast()
            }
            return
        }
    }

    /// An array or object being written: its elements or members, and the position of the one
    /// being written.
    private struct OpenContainer {
        var elements: [JSONValue] = []
        var members: [(name: String, value: JSONValue)]?
        var current = 0

        init(elements: [JSONValue]) {
            self.elements = elements
        }

        init(members: [(name: String, value: JSONValue)]) {
            self.members = members
        }

        var count: Int { members?.count ?? elements.count }
    }

    /// Integers print without a fraction so NumericDates round-trip as written.
    static func format(_ number: Double) -> String {
        if number == number.rounded(), abs(number) < 1e15 {
            return String(Int64(number))
        }
        return String(number)
    }

    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        // Most strings (key ids, base64url, URLs) need no escape: copied whole, not scalar by scalar.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 || $0 == 0x7F })
        else {
            output += text
            output += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let control where control.value < 0x20 || control.value == 0x7F:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// `text` as a JSON string literal, quotes included.
    package static func quoted(_ text: String) -> String {
        var output = ""
        writeString(text, to: &output)
        return output
    }
}
