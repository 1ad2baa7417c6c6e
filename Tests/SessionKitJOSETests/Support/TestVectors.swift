import Foundation

/// Locates the shared public test vectors next to the package checkout (`../shared/vectors/`).
enum TestVectors {
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // SessionKitJOSETests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
        .deletingLastPathComponent()
        .appendingPathComponent("shared/vectors", isDirectory: true)

    static func data(_ relativePath: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(relativePath))
    }

    static func json(_ relativePath: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: try data(relativePath))
        guard let dictionary = object as? [String: Any] else { throw VectorError.unexpectedShape(relativePath) }
        return dictionary
    }

    enum VectorError: Error {
        case unexpectedShape(String)
    }
}

extension Array where Element == UInt8 {
    /// Bytes from a hex string; nil for odd length or a non-hex character.
    init?(hex: String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for character in hex.utf8 {
            let nibble: UInt8
            switch character {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let pending = high {
                bytes.append(pending << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { return nil }
        self = bytes
    }
}
