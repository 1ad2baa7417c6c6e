/// One challenge of a `WWW-Authenticate` field (RFC 9110 §11.6.1): a scheme with either a
/// `token68` or a list of parameters.
///
/// Parsing is strict and bounded: a field longer than ``maximumFieldLength`` or with more than
/// ``maximumParameterCount`` parameters is refused, and nothing the server sent is rendered by
/// an error.
public struct AuthenticationChallenge: Sendable, Equatable {
    /// The longest field value parsed.
    public static let maximumFieldLength = 8192
    /// The most parameters accepted over all challenges of a field.
    public static let maximumParameterCount = 64

    /// The authentication scheme as sent (compare case-insensitively, e.g. `DPoP`, `Bearer`).
    public let scheme: String
    /// The `token68` form's value, when the challenge used it.
    public let token68: String?
    /// The parameters in order; names as sent, quoted-string values unescaped.
    public let parameters: [(name: String, value: String)]

    /// Creates a challenge.
    public init(scheme: String, token68: String? = nil, parameters: [(name: String, value: String)] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// The first value of parameter `name`, matched case-insensitively (RFC 9110 §11.2).
    public func parameter(_ name: String) -> String? {
        parameters.first { Self.caseInsensitiveEquals($0.name, name) }?.value
    }

    /// Whether the scheme is `name`, compared case-insensitively.
    public func hasScheme(_ name: String) -> Bool {
        Self.caseInsensitiveEquals(scheme, name)
    }

    /// Equal when scheme, token68 and the ordered parameters are equal.
    public static func == (lhs: AuthenticationChallenge, rhs: AuthenticationChallenge) -> Bool {
        lhs.scheme == rhs.scheme && lhs.token68 == rhs.token68 && lhs.parameters.map(\.name) == rhs.parameters.map(\.name)
            && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    /// Parses every challenge of one `WWW-Authenticate` field value.
    public static func parse(_ fieldValue: String) throws(DPoPHeaderError) -> [AuthenticationChallenge] {
        let bytes = Array(fieldValue.utf8)
        guard bytes.count <= maximumFieldLength else { throw .tooLong }
        var parser = ChallengeParser(bytes: bytes)
        return try parser.parseAll()
    }

    /// ASCII-only case folding: scheme and parameter names are tokens (RFC 9110 §5.6.2).
    static func caseInsensitiveEquals(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.count == rhs.utf8.count
            && zip(lhs.utf8, rhs.utf8).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20))
            }
    }

    /// The field value for these challenges: parameter values as quoted strings.
    public static func serialize(_ challenges: [AuthenticationChallenge]) -> String {
        challenges.map { challenge in
            var text = challenge.scheme
            if let token68 = challenge.token68 {
                text += " " + token68
            } else if !challenge.parameters.isEmpty {
                text +=
                    " "
                    + challenge.parameters.map { name, value in
                        var quoted = "\""
                        for scalar in value.unicodeScalars {
                            if scalar == "\"" || scalar == "\\" { quoted += "\\" }
                            quoted.unicodeScalars.append(scalar)
                        }
                        return name + "=" + quoted + "\""
                    }.joined(separator: ", ")
            }
            return text
        }.joined(separator: ", ")
    }
}

/// The `WWW-Authenticate` grammar of RFC 9110 §11.6.1 over bytes, with the list rule's empty
/// elements allowed (§5.6.1).
struct ChallengeParser {
    let bytes: [UInt8]
    var index = 0
    var parameterCount = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseAll() throws(DPoPHeaderError) -> [AuthenticationChallenge] {
        var challenges: [AuthenticationChallenge] = []
        skipListSeparators()
        while index < bytes.count {
            challenges.append(try parseChallenge())
            skipWhitespace()
            guard index == bytes.count || bytes[index] == UInt8(ascii: ",") else { throw .malformed }
            skipListSeparators()
        }
        guard !challenges.isEmpty else { throw .malformed }
        return challenges
    }

    /// One challenge; stops before the comma that ends it.
    private mutating func parseChallenge() throws(DPoPHeaderError) -> AuthenticationChallenge {
        guard let scheme = readToken() else { throw .malformed }
        let afterScheme = index
        guard skipSpaces() else { return AuthenticationChallenge(scheme: scheme) }
        // A parameter list starts with `token BWS "="` followed by something other than the end,
        // a comma or another "=" (which would make it a token68's padding).
        if let token68 = readToken68IfPresent() {
            return AuthenticationChallenge(scheme: scheme, token68: token68)
        }
        var parameters: [(name: String, value: String)] = []
        while let parameter = try readParameterIfPresent() {
            parameters.append(parameter)
            parameterCount += 1
            guard parameterCount <= AuthenticationChallenge.maximumParameterCount else { throw .tooLong }
            // Another parameter of this challenge follows a comma; a new challenge follows one too.
            let mark = index
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else {
                index = mark
                break
            }
            skipListSeparators()
            if try peekParameter() { continue }
            // Leave the comma for the caller, which then reads the next challenge.
            index = mark
            break
        }
        if parameters.isEmpty {
            // The scheme stands alone: the spaces after it belong to no parameter.
            index = afterScheme
        }
        return AuthenticationChallenge(scheme: scheme, parameters: parameters)
    }

    /// Whether a parameter starts here, without consuming it.
    private mutating func peekParameter() throws(DPoPHeaderError) -> Bool {
        let mark = index
        defer { index = mark }
        return try readParameterIfPresent() != nil
    }

    /// `token BWS "=" BWS ( token / quoted-string )`, or nil (nothing consumed) when no parameter
    /// starts here.
    private mutating func readParameterIfPresent() throws(DPoPHeaderError) -> (name: String, value: String)? {
        let mark = index
        guard let name = readToken() else { return nil }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
            index = mark
            return nil
        }
        index += 1
        skipWhitespace()
        guard index < bytes.count else { throw .malformed }
        if bytes[index] == UInt8(ascii: "\"") {
            return (name, try readQuotedString())
        }
        guard let value = readToken() else { throw .malformed }
        return (name, value)
    }

    /// `token68` when the rest of this list element is exactly one, else nil with nothing consumed.
    private mutating func readToken68IfPresent() -> String? {
        let start = index
        var end = index
        while end < bytes.count, Self.isToken68Char(bytes[end]) { end += 1 }
        guard end > start else { return nil }
        var padded = end
        while padded < bytes.count, bytes[padded] == UInt8(ascii: "=") { padded += 1 }
        var after = padded
        while after < bytes.count, bytes[after] == 0x20 || bytes[after] == 0x09 { after += 1 }
        guard after == bytes.count || bytes[after] == UInt8(ascii: ",") else { return nil }
        // `name=` with nothing after it reads as a token68 with padding, which is what it is.
        index = padded
        return String(decoding: bytes[start..<padded], as: UTF8.self)
    }

    private mutating func readQuotedString() throws(DPoPHeaderError) -> String {
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index + 1 < bytes.count, Self.isQuotedPairChar(bytes[index + 1]) else { throw .malformed }
                value.append(bytes[index + 1])
                index += 2
            default:
                guard Self.isQDText(byte) else { throw .malformed }
                value.append(byte)
                index += 1
            }
        }
        throw .malformed
    }

    private mutating func readToken() -> String? {
        let start = index
        while index < bytes.count, Self.isTokenChar(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// Skips at least one space or tab; false (nothing skipped) when none is here.
    private mutating func skipSpaces() -> Bool {
        let start = index
        skipWhitespace()
        return index > start
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    private mutating func skipListSeparators() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == UInt8(ascii: ",") {
            index += 1
        }
    }

    /// `tchar` of RFC 9110 §5.6.2.
    static func isTokenChar(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// The characters of `token68` before its padding (RFC 9110 §11.2).
    static func isToken68Char(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("-._~+/".utf8).contains(byte)
        }
    }

    /// `qdtext`: HTAB, SP, visible ASCII but `"` and `\`, and obs-text.
    static func isQDText(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
            || byte >= 0x80
    }

    /// What may follow `\` in a quoted-pair: HTAB, SP, VCHAR, obs-text.
    static func isQuotedPairChar(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x20 || (0x21...0x7E).contains(byte) || byte >= 0x80
    }
}
