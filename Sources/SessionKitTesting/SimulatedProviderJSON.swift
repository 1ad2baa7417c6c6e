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
        switch self {
        case .string(let text): Self.quote(text)
        case .integer(let number): String(number)
        case .number(let number):
            number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array(let items): "[" + items.map(\.serialized).joined(separator: ",") + "]"
        case .object(let members):
            "{" + members.map { Self.quote($0.0) + ":" + $0.1.serialized }.joined(separator: ",") + "}"
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

    private static func quote(_ text: String) -> String {
        var out = "\""
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
        return out + "\""
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
