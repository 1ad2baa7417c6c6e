#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One claim's JSON value, as a verified id_token or a checked UserInfo response carried it.
///
/// Claims the library does not read itself (a provider's `tenant`, `roles`, `address`, …) are kept
/// in this form, so an app reads them from the verified token only, never from an unverified
/// decode. Read a value with the accessors, or decode it into an app type with
/// ``decode(as:claim:)``. Numbers are `Double`, as the strict parser reads them.
///
/// Closed by design: these are JSON's kinds of value (RFC 8259), so an app may switch over them
/// without a `default:`.
public enum ClaimValue: Sendable, Hashable, Codable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([ClaimValue])
    /// An object; member order is not kept.
    case object([String: ClaimValue])

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The flag, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [ClaimValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an object.
    public var objectValue: [String: ClaimValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value decoded as `type`: `String`, `Bool`, `Double`, `Int`, `[String]`, or any
    /// `Decodable` app type (an `address` struct, a list of roles).
    ///
    /// - Parameters:
    ///   - type: the type to decode, when the context does not say it.
    ///   - claim: the claim's name, for the error.
    /// - Throws: ``ClaimError/typeMismatch(claim:)`` when the value does not have that shape.
    public func decode<T: Decodable>(as type: T.Type = T.self, claim: String) throws(ClaimError) -> T {
        // The common shapes without a round trip through an encoder.
        switch self {
        case .string(let text): if let value = text as? T { return value }
        case .bool(let flag): if let value = flag as? T { return value }
        case .number(let number): if let value = number as? T { return value }
        default: break
        }
        do {
            return try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
        } catch {
            // The decoder's message may quote the value; name the claim only.
            throw .typeMismatch(claim: claim)
        }
    }

    /// Decodes any JSON value; booleans are never read as numbers or the other way round.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([ClaimValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: ClaimValue].self))
        }
    }

    /// Encodes the value as the JSON it came from.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let number): try container.encode(number)
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

extension ClaimValue {
    /// The value the strict parser produced.
    init(_ json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let number): self = .number(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(ClaimValue.init))
        case .object(let object):
            var members: [String: ClaimValue] = [:]
            for member in object.orderedMembers {
                members[member.name] = ClaimValue(member.value)
            }
            self = .object(members)
        }
    }
}
