public import Foundation

/// The one-time token the system hands an app to import credentials another app exported.
///
/// It is a UUID, good for a single import; treat it as a secret: every way Swift can print it
/// shows a redacted placeholder.
public struct CredentialImportToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The token, to hand to the system's import call.
    public let uuid: UUID

    /// Wraps a token.
    public init(_ uuid: UUID) {
        self.uuid = uuid
    }

    /// Parses a token from its canonical text form (`8-4-4-4-12` hexadecimal digits, either
    /// case); `nil` for anything else.
    public init?(uuidString text: String) {
        // Parsed here, digit by digit: Foundation's parser on Linux accepts signs, spaces and
        // `0x` prefixes inside the groups and returns a different UUID for them.
        let characters = Array(text.utf8)
        guard characters.count == 36 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        var nibbles = 0
        for (offset, character) in characters.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard character == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard let value = Self.hexValue(character) else { return nil }
            bytes[nibbles / 2] |= nibbles % 2 == 0 ? value << 4 : value
            nibbles += 1
        }
        self.uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9], bytes[10], bytes[11],
                bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    private static func hexValue(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `CredentialImportToken(<redacted>)`.
    public var debugDescription: String { "CredentialImportToken(<redacted>)" }
    /// Hides the value from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
