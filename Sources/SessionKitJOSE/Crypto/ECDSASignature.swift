/// ECDSA P-256 signatures between the two forms in use: IEEE P1363 (`r || s`, 32 bytes each),
/// which JWS ES256 carries (RFC 7518 §3.4), and DER `ECDSA-Sig-Value` (`SEQUENCE { INTEGER r,
/// INTEGER s }`, RFC 3279 §2.2.3), which OpenSSL and Security take and give.
///
/// Kept platform-neutral so both conversions are tested everywhere, not only where they are used.
package enum ECDSASignature {
    /// The order `n` of the P-256 base point, big-endian.
    package static let p256Order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// The DER form of a P1363 P-256 signature, or nil when it is not exactly 64 bytes or `r` or
    /// `s` lies outside [1, n-1] (such a signature never verifies, SEC 1 §4.1.4 step 1).
    package static func der(fromP1363 signature: UnsafeRawBufferPointer) -> [UInt8]? {
        guard signature.count == 64 else { return nil }
        let r = UnsafeRawBufferPointer(rebasing: signature[0..<32])
        let s = UnsafeRawBufferPointer(rebasing: signature[32..<64])
        guard isScalarInRange(r), isScalarInRange(s) else { return nil }
        let rLength = integerLength(r)
        let sLength = integerLength(s)
        let bodyLength = 2 + rLength + 2 + sLength
        // At most 2 × 35 bytes: the body always fits a one-byte (short form) length.
        return [UInt8](unsafeUninitializedCapacity: 2 + bodyLength) { out, count in
            out[0] = 0x30
            out[1] = UInt8(bodyLength)
            var index = 2
            func write(_ scalar: UnsafeRawBufferPointer, length: Int) {
                out[index] = 0x02
                out[index + 1] = UInt8(length)
                index += 2
                // The magnitude without leading zeros, with one zero octet first when its high bit is set.
                var start = 0
                while start < 31, scalar[start] == 0 { start += 1 }
                if scalar[start] & 0x80 != 0 {
                    out[index] = 0
                    index += 1
                }
                for offset in start..<32 {
                    out[index] = scalar[offset]
                    index += 1
                }
            }
            write(r, length: rLength)
            write(s, length: sLength)
            count = index
        }
    }

    /// The P1363 form (64 bytes) of a DER `ECDSA-Sig-Value` for P-256, or nil when the bytes are
    /// not exactly that structure in minimal DER, or an integer does not fit 32 bytes.
    package static func p1363(fromDER der: [UInt8]) -> [UInt8]? {
        guard der.count >= 8, der[0] == 0x30, der[1] < 0x80, Int(der[1]) == der.count - 2 else { return nil }
        var out = [UInt8](repeating: 0, count: 64)
        var index = 2
        for half in 0..<2 {
            guard index + 2 <= der.count, der[index] == 0x02 else { return nil }
            let length = Int(der[index + 1])
            index += 2
            guard length >= 1, length < 0x80, index + length <= der.count else { return nil }
            var content = der[index..<(index + length)]
            // Minimal and non-negative: a leading zero only before a set high bit, never a set high bit first.
            guard content[content.startIndex] & 0x80 == 0 else { return nil }
            if content.count > 1, content[content.startIndex] == 0 {
                guard content[content.startIndex + 1] & 0x80 != 0 else { return nil }
                content = content.dropFirst()
            }
            guard content.count <= 32 else { return nil }
            let end = half * 32 + 32
            out.replaceSubrange((end - content.count)..<end, with: content)
            index += length
        }
        return index == der.count ? out : nil
    }

    /// Whether a 32-byte big-endian scalar is in [1, n-1].
    static func isScalarInRange(_ scalar: UnsafeRawBufferPointer) -> Bool {
        var isZero = true
        var comparison = 0  // the first differing byte against n decides: -1 below, 1 above
        for index in 0..<32 {
            let byte = scalar[index]
            if byte != 0 { isZero = false }
            if comparison == 0, byte != p256Order[index] { comparison = byte < p256Order[index] ? -1 : 1 }
        }
        return !isZero && comparison < 0
    }

    /// Content length of the DER INTEGER for a 32-byte unsigned scalar.
    private static func integerLength(_ scalar: UnsafeRawBufferPointer) -> Int {
        var start = 0
        while start < 31, scalar[start] == 0 { start += 1 }
        return 32 - start + (scalar[start] & 0x80 != 0 ? 1 : 0)
    }
}
