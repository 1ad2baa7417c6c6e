/// PKCS #1 `RSAPublicKey` DER (`SEQUENCE { INTEGER n, INTEGER e }`), the form Apple's Security
/// framework takes and gives for RSA public keys.
///
/// Kept platform-neutral so the encoding is tested everywhere, not only where it is used.
enum RSAKeyDER {
    /// DER for a public key from big-endian unsigned modulus and exponent.
    static func publicKey(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let body = integer(modulus) + integer(exponent)
        return [0x30] + length(body.count) + body
    }

    /// Modulus and exponent (without leading zeros) from PKCS #1 public-key DER, or nil when the
    /// bytes are not exactly that structure in definite-length DER.
    static func parsePublicKey(_ der: [UInt8]) -> (modulus: [UInt8], exponent: [UInt8])? {
        var index = 0
        guard let sequence = element(der, at: &index, tag: 0x30), index == der.count else { return nil }
        var inner = 0
        let body = Array(der[sequence])
        guard let n = element(body, at: &inner, tag: 0x02), let e = element(body, at: &inner, tag: 0x02),
            inner == body.count
        else { return nil }
        guard let modulus = unsignedInteger(body[n]), let exponent = unsignedInteger(body[e]) else { return nil }
        return (modulus, exponent)
    }

    private static func integer(_ value: [UInt8]) -> [UInt8] {
        var magnitude = ArraySlice(value.drop { $0 == 0 })
        if magnitude.isEmpty { magnitude = [0] }
        // A set high bit would read as negative; DER prefixes one zero octet.
        if let first = magnitude.first, first & 0x80 != 0 { magnitude.insert(0, at: magnitude.startIndex) }
        return [0x02] + length(magnitude.count) + magnitude
    }

    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            bytes.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// The content range of the element with `tag` at `index`, advancing `index` past it.
    private static func element(_ der: [UInt8], at index: inout Int, tag: UInt8) -> Range<Int>? {
        guard index + 2 <= der.count, der[index] == tag else { return nil }
        var cursor = index + 1
        let first = der[cursor]
        cursor += 1
        var count = 0
        if first < 0x80 {
            count = Int(first)
        } else {
            let octets = Int(first & 0x7F)
            guard octets >= 1, octets <= 4, cursor + octets <= der.count, der[cursor] != 0 else { return nil }
            for _ in 0..<octets {
                count = count << 8 | Int(der[cursor])
                cursor += 1
            }
            // Long form for a length that fits the short form is not DER.
            guard count >= 0x80 else { return nil }
        }
        guard count <= der.count - cursor else { return nil }
        index = cursor + count
        return cursor..<(cursor + count)
    }

    private static func unsignedInteger(_ content: ArraySlice<UInt8>) -> [UInt8]? {
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        if first == 0, content.count > 1, content[content.startIndex + 1] & 0x80 == 0 { return nil }
        let magnitude = Array(content.drop { $0 == 0 })
        return magnitude.isEmpty ? nil : magnitude
    }
}
