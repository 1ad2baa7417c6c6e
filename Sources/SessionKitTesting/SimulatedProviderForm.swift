import Foundation

/// `application/x-www-form-urlencoded` and URL-query coding for the simulated provider.
enum SimulatedProviderForm {
    /// Why a form or query could not be read.
    enum Failure: Error, Equatable {
        /// A parameter appears more than once (RFC 6749 §3.1 forbids it).
        case repeated(String)
        /// The bytes are not UTF-8 or a percent escape is broken.
        case undecodable
    }

    /// Decodes a form body: `+` is a space, percent escapes are UTF-8.
    static func decodeForm(_ body: Data) throws(Failure) -> [String: String] {
        guard let text = String(data: body, encoding: .utf8) else { throw .undecodable }
        return try decode(text, plusIsSpace: true)
    }

    /// Decodes a URL's query component as RFC 3986 reads it (`+` is a plus).
    static func decodeQuery(of url: URL) throws(Failure) -> [String: String] {
        try decodeQuery(of: url, repeatable: []).single
    }

    /// Decodes a URL's query; the names in `repeatable` (RFC 8707 `resource`) may appear several
    /// times and are collected in order, any other repeated name fails.
    static func decodeQuery(
        of url: URL, repeatable: Set<String>
    ) throws(Failure) -> (single: [String: String], repeated: [String: [String]]) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw .undecodable }
        return try decode(components.percentEncodedQuery ?? "", plusIsSpace: false, repeatable: repeatable)
    }

    private static func decode(_ text: String, plusIsSpace: Bool) throws(Failure) -> [String: String] {
        try decode(text, plusIsSpace: plusIsSpace, repeatable: []).single
    }

    private static func decode(
        _ text: String, plusIsSpace: Bool, repeatable: Set<String>
    ) throws(Failure) -> (single: [String: String], repeated: [String: [String]]) {
        var result: [String: String] = [:]
        var repeated: [String: [String]] = [:]
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let rawValue = parts.count > 1 ? String(parts[1]) : ""
            guard let name = unescape(rawName, plusIsSpace: plusIsSpace),
                let value = unescape(rawValue, plusIsSpace: plusIsSpace)
            else { throw .undecodable }
            if repeatable.contains(name) {
                repeated[name, default: []].append(value)
                continue
            }
            guard result[name] == nil else { throw .repeated(name) }
            result[name] = value
        }
        return (result, repeated)
    }

    private static func unescape(_ text: String, plusIsSpace: Bool) -> String? {
        let spaced = plusIsSpace ? text.replacingOccurrences(of: "+", with: " ") : text
        return spaced.removingPercentEncoding
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func escape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }

    /// Appends query parameters to a URL, keeping any query it already has.
    static func appending(_ parameters: [(String, String)], to url: URL) -> URL {
        let encoded = parameters.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        return components.url ?? url
    }
}
