import Foundation
import SessionKit

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
        // Split on the bytes: `&` and `=` are ASCII, so every piece is whole UTF-8, and no
        // character boundaries need finding.
        for pair in text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = FormEncoding.unescape(Substring(parts[0]), plusIsSpace: plusIsSpace),
                let value = parts.count > 1 ? FormEncoding.unescape(Substring(parts[1]), plusIsSpace: plusIsSpace) : ""
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

    /// Appends query parameters to a URL, keeping any query it already has.
    static func appending(_ parameters: [(String, String)], to url: URL) -> URL {
        let encoded = parameters.map { FormEncoding.escape($0.0) + "=" + FormEncoding.escape($0.1) }.joined(separator: "&")
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + encoded
        } else {
            components.percentEncodedQuery = encoded
        }
        return components.url ?? url
    }
}
