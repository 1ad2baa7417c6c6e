import Foundation

/// `application/x-www-form-urlencoded` as OAuth needs it: only RFC 3986 unreserved characters are
/// left as they are, so a `+` or `/` in a token survives the round trip.
package enum FormEncoding {
    /// ALPHA / DIGIT / "-" / "." / "_" / "~" (RFC 3986 §2.3).
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Encodes fields in order as `name=value&…`.
    static func encode(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&").utf8)
    }

    /// `request` with `fields` appended to its form body, and `client_id` first when the body has
    /// none (a client that authenticates in the body names itself there, RFC 6749 §2.3.1).
    static func appending(_ fields: [(String, String)], to request: HTTPRequest, clientID: String) -> HTTPRequest {
        var request = request
        let body = request.body.map { String(decoding: $0, as: UTF8.self) } ?? ""
        var added = fields
        if decode(body)["client_id"] == nil { added.insert(("client_id", clientID), at: 0) }
        let encoded = String(decoding: encode(added), as: UTF8.self)
        request.body = Data((body.isEmpty ? encoded : body + "&" + encoded).utf8)
        return request
    }

    /// Percent-encodes every UTF-8 byte outside the unreserved set, in upper-case hex.
    ///
    /// Byte by byte rather than through `addingPercentEncoding`, which goes through a bridged
    /// string on Linux: every request body is built here.
    package static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { !isUnreserved($0) }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Undoes ``escape(_:)`` and form encoding: `+` is a space when `plusIsSpace`, `%XX` is a byte;
    /// `nil` when an escape is broken or the bytes are not UTF-8 (as `removingPercentEncoding`).
    package static func unescape(_ text: Substring, plusIsSpace: Bool = true) -> String? {
        let plus = plusIsSpace ? UInt8(ascii: "+") : UInt8(ascii: "%")
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == plus }) else { return String(text) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var index = text.utf8.startIndex
        let end = text.utf8.endIndex
        while index != end {
            let byte = text.utf8[index]
            text.utf8.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "%"):
                guard index != end, let high = hexValue(text.utf8[index]) else { return nil }
                text.utf8.formIndex(after: &index)
                guard index != end, let low = hexValue(text.utf8[index]) else { return nil }
                text.utf8.formIndex(after: &index)
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(bytes: bytes, encoding: .utf8)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
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

}
