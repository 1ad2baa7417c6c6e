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

    /// The compact serialization as UTF-8 bytes: one buffer grown in place, not one string per value.
    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .string(let text): Self.writeQuoted(text, to: &out)
        case .integer(let number): out += String(number).utf8
        case .number(let number):
            out += (number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)).utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .null: out += "null".utf8
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.writeQuoted(member.0, to: &out)
                out.append(UInt8(ascii: ":"))
                member.1.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
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

    private static func writeQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        defer { out.append(UInt8(ascii: "\"")) }
        // Most strings (ids, tokens, URLs) need no escape at all: copied whole.
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            out += text.utf8
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case UInt8(ascii: "\n"): out += #"\n"#.utf8
            case UInt8(ascii: "\r"): out += #"\r"#.utf8
            case UInt8(ascii: "\t"): out += #"\t"#.utf8
            case ..<0x20:
                // Any other control character as \u00XX (RFC 8259 §7); bytes from 0x80 are UTF-8, copied.
                out += #"\u00"#.utf8
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

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
