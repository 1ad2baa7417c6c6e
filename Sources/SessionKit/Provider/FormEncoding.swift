import Foundation

/// `application/x-www-form-urlencoded` as OAuth needs it: only RFC 3986 unreserved characters are
/// left as they are, so a `+` or `/` in a token survives the round trip.
enum FormEncoding {
    /// ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986 §2.3).
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Encodes fields in order as `name=value&…`.
    static func encode(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
    }

    static func escape(_ text: String) -> String {
        // Every character outside the unreserved set is percent-encoded as UTF-8.
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Decodes a form body or query; `+` means a space; the first occurrence of a name wins, even
    /// when its value is malformed (then the name has no value at all).
    static func decode(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var seen: Set<String> = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]), seen.insert(name).inserted else { continue }
            if let value = parts.count > 1 ? unescape(parts[1]) : "" { result[name] = value }
        }
        return result
    }

    /// The names that appear more than once in `text` (RFC 6749 §3.1: no parameter may repeat).
    static func repeatedNames(in text: String) -> [String] {
        var seen: Set<String> = []
        var repeated: [String] = []
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let rawName = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard let name = unescape(rawName) else { continue }
            if !seen.insert(name).inserted && !repeated.contains(name) { repeated.append(name) }
        }
        return repeated
    }

    private static func unescape(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
