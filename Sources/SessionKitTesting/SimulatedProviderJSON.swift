import Foundation
import SessionKitJOSE

/// A JSON value the simulated provider writes, with its keys in the order they were given.
///
/// Writing by hand keeps responses and id_token payloads byte-for-byte stable from run to run and
/// free of platform differences (slash escaping, number formatting).
enum SimulatedProviderJSON: Sendable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null
    case array([SimulatedProviderJSON])
    case object([(String, SimulatedProviderJSON)])

    /// The compact serialization.
    var serialized: String {
        var out = ""
        write(to: &out)
        return out
    }

    /// Appends the compact serialization: one string grown in place, not one per value.
    private func write(to out: inout String) {
        switch self {
        case .string(let text): Self.writeQuoted(text, to: &out)
        case .integer(let number): out += String(number)
        case .number(let number):
            out += number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeQuoted(member.0, to: &out)
                out += ":"
                member.1.write(to: &out)
            }
            out += "}"
        }
    }

    /// A claim value as the provider writes it; object members in name order, so output is stable.
    init(_ claim: ClaimValue) {
        switch claim {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(SimulatedProviderJSON.init))
        case .object(let members):
            self = .object(members.keys.sorted().map { ($0, SimulatedProviderJSON(members[$0] ?? .null)) })
        }
    }

    /// The serialization as UTF-8 bytes.
    var bytes: [UInt8] { Array(serialized.utf8) }

    private static func writeQuoted(_ text: String, to out: inout String) {
        out += "\""
        defer { out += "\"" }
        // Most strings (ids, tokens, URLs) need no escape at all: copied whole.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
    }

    /// One member of a parsed request body, reduced to what the endpoints need.
    enum Field: Sendable, Equatable {
        case string(String)
        case null
        case other
    }

    /// Parses a request body that must be one JSON object; `nil` for anything else.
    static func parseObject(_ data: Data) -> [String: Field]? {
        guard let object = try? JSONSerialization.jsonObject(with: data), let dictionary = object as? [String: Any]
        else { return nil }
        return dictionary.mapValues { value in
            switch value {
            case let text as String: .string(text)
            case is NSNull: .null
            default: .other
            }
        }
    }
}
