public import Foundation
import Synchronization

/// The `htu` of a DPoP proof (RFC 9449 §4.2, §4.3): the request's URI without query and
/// fragment, normalised the way RFC 3986 §6.2.2 and §6.2.3 compare URIs, so that a server that
/// normalises before comparing and one that does not both see the same text.
public enum DPoPTargetURI {
    /// `url` as an `htu`: lowercase scheme and host, no user information, the scheme's default
    /// port dropped, an empty path as `/`, percent-encodings in upper case with unreserved
    /// characters decoded, and no query or fragment. Nil for a URL without scheme or host.
    public static func normalized(_ url: URL) -> String? {
        // A session sends to the same few endpoints again and again: each URL is taken apart
        // once, not before every proof.
        if let known = recent.withLock({ $0[url] }) { return known }
        let text = computeNormalized(url)
        recent.withLock { recent in
            if recent.count >= 32 { recent.removeAll() }
            recent[url] = text
        }
        return text
    }

    /// The URLs normalised lately, with what they gave (nil included). Bounded: full, it starts over.
    private static let recent = Mutex<[URL: String?]>([:])

    private static func computeNormalized(_ url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), var host = components.percentEncodedHost?.lowercased(),
            !host.isEmpty
        else { return nil }
        if host.contains(":"), !host.hasPrefix("[") { host = "[" + host + "]" }
        var text = scheme + "://" + host
        if let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            text += ":" + String(port)
        }
        let path = normalizedPercentEncoding(components.percentEncodedPath)
        text += path.isEmpty ? "/" : path
        return text
    }

    /// Upper-case hex digits in every percent-encoding, and unreserved characters
    /// (`ALPHA / DIGIT / "-" / "." / "_" / "~"`) decoded (RFC 3986 §6.2.2.1, §6.2.2.2).
    static func normalizedPercentEncoding(_ path: String) -> String {
        let bytes = Array(path.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                let value = high << 4 | low
                if isUnreserved(value) {
                    out.append(value)
                } else {
                    out.append(UInt8(ascii: "%"))
                    out.append(upperHex(high))
                    out.append(upperHex(low))
                }
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func upperHex(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
