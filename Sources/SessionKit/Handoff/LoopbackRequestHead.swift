/// The head of one HTTP/1.x request, as the ``LoopbackPresenter``'s listener reads it off a socket.
///
/// Parsing is strict (RFC 9112): a request line of token method, origin-form target and
/// `HTTP/1.0` or `HTTP/1.1`; CRLF line ends; header names that are tokens, directly followed by a
/// colon; no line folding; no control characters; at most one `Host`. Anything else is
/// ``Problem/malformed`` and is answered 400. The bytes come from any local process, so nothing
/// here trusts them.
struct LoopbackRequestHead: Sendable, Equatable {
    /// Why a head was refused.
    enum Problem: Error, Equatable {
        /// The bytes are not an HTTP/1.x request head.
        case malformed
    }

    /// The largest head accepted; far above a browser's callback request, far below a flood.
    static let maximumSize = 8 * 1024
    static let terminator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]

    /// The request method, e.g. `GET`.
    var method: String
    /// The origin-form request target: path and query as sent.
    var target: String
    /// The `Host` header's value, if any.
    var host: String?

    /// The target's path, before any `?`.
    var path: Substring { target.prefix { $0 != "?" } }

    /// The target's query, after the first `?`, or `nil` when there is none.
    var query: Substring? {
        guard let mark = target.firstIndex(of: "?") else { return nil }
        return target[target.index(after: mark)...]
    }

    /// Where the head ends in `buffer` (just past its blank line), or `nil` while incomplete.
    static func end(in buffer: [UInt8]) -> Int? {
        buffer.firstRange(of: terminator)?.upperBound
    }

    /// Parses a head: `bytes` run up to and including the blank line that ends it.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(Problem) -> LoopbackRequestHead {
        guard bytes.count <= maximumSize, bytes.count >= 4, bytes.suffix(4).elementsEqual(terminator) else {
            throw .malformed
        }
        var lines = Self.lines(bytes.dropLast(4))
        guard !lines.isEmpty else { throw .malformed }
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].allSatisfy(isTokenByte), !parts[0].isEmpty,
            parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ (0x21...0x7E).contains($0) }),
            parts[2].elementsEqual("HTTP/1.1".utf8) || parts[2].elementsEqual("HTTP/1.0".utf8)
        else { throw .malformed }
        var host: String?
        for line in lines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed }
            let name = line[line.startIndex..<colon]
            // A name must be a token; leading whitespace would be obsolete line folding.
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .malformed }
            let value = line[line.index(after: colon)...]
            guard value.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }) else { throw .malformed }
            if String(decoding: name, as: UTF8.self).lowercased() == "host" {
                guard host == nil else { throw .malformed }
                host = String(decoding: trimmed(value), as: UTF8.self)
            }
        }
        return LoopbackRequestHead(
            method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self), host: host)
    }

    /// Splits at CRLF; a lone CR or LF anywhere is malformed, so it is kept in a line and refused there.
    private static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x0D, bytes.index(after: index) < bytes.endIndex, bytes[bytes.index(after: index)] == 0x0A {
                lines.append(bytes[start..<index])
                index = bytes.index(index, offsetBy: 2)
                start = index
            } else {
                index = bytes.index(after: index)
            }
        }
        lines.append(bytes[start..<bytes.endIndex])
        return lines
    }

    private static func trimmed(_ value: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
        guard let first = value.firstIndex(where: { !isSpace($0) }), let last = value.lastIndex(where: { !isSpace($0) }) else {
            return []
        }
        return value[first...last]
    }

    /// RFC 9110 §5.6.2 `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default:
            Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
