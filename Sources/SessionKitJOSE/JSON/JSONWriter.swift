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

    static func write(_ value: JSONValue, to output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += format(number)
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (offset, member) in object.orderedMembers.enumerated() {
                if offset > 0 { output += "," }
                writeString(member.name, to: &output)
                output += ":"
                write(member.value, to: &output)
            }
            output += "}"
        }
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
