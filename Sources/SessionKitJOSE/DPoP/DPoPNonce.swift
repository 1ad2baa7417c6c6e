/// A server's DPoP nonce (RFC 9449 §8, §9): the value of a `DPoP-Nonce` header field, checked
/// against the RFC's grammar `1*NQCHAR` (`%x21 / %x23-5B / %x5D-7E`: visible ASCII without `"`
/// and `\`).
///
/// A nonce is opaque and short-lived but still a value a server chose for this client: it is
/// never rendered.
public struct DPoPNonce: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The longest nonce accepted; a longer header is refused rather than echoed in every proof.
    public static let maximumLength = 1024

    /// The nonce, for the `nonce` claim of the next proof.
    public let value: String

    /// Parses a `DPoP-Nonce` field value: optional whitespace around one nonce.
    /// Throws ``DPoPHeaderError`` for an empty, too long or ill-formed value.
    public init(headerValue: String) throws(DPoPHeaderError) {
        var bytes = Substring(headerValue).utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        guard !bytes.isEmpty else { throw .malformed }
        guard bytes.count <= DPoPNonce.maximumLength else { throw .tooLong }
        for byte in bytes where !DPoPNonce.isNQChar(byte) { throw .malformed }
        self.value = String(decoding: bytes, as: UTF8.self)
    }

    /// `NQCHAR` of RFC 9449 §8.1.
    static func isNQChar(_ byte: UInt8) -> Bool {
        byte == 0x21 || (0x23...0x5B).contains(byte) || (0x5D...0x7E).contains(byte)
    }

    /// Names the type only: the value is never rendered.
    public var description: String { "DPoPNonce(redacted)" }

    /// Names the type only: the value is never rendered.
    public var debugDescription: String { description }

    /// No children: `dump` and mirrors show no part of the value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
