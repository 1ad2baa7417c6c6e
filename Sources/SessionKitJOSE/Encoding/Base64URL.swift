/// Base64url without padding (RFC 4648 §5, as JOSE uses it, RFC 7515 §2).
///
/// Decoding is strict: only the 64 alphabet characters, no `=` padding, no whitespace, no
/// length that leaves a lone character, and the unused low bits of the last character must be
/// zero. That makes every byte string have exactly one accepted encoding, so two different
/// texts never verify as the same token.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Marks a byte outside the alphabet in ``decodeTables``.
    private static let invalid: UInt32 = 0x8000_0000

    /// Four lookup tables, one per position in a 4-character group, holding each character's
    /// 6 bits already shifted into place; OR-ing four entries gives the 24-bit group, and the
    /// ``invalid`` bit survives the OR if any character was outside the alphabet.
    private static let decodeTables: [UInt32] = {
        var tables = [UInt32](repeating: invalid, count: 4 * 256)
        for (value, character) in alphabet.enumerated() {
            for position in 0..<4 {
                tables[position * 256 + Int(character)] = UInt32(value) << (18 - 6 * position)
            }
        }
        return tables
    }()

    /// The unpadded base64url text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) {
            return text
        }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    /// Decodes unpadded base64url text, rejecting every non-canonical form with
    /// ``JOSEError/invalidBase64URL``.
    public static func decode(_ text: some StringProtocol) throws(JOSEError) -> [UInt8] {
        let utf8 = text.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ decode(buffer: $0) }) {
            guard let bytes = result else { throw .invalidBase64URL }
            return bytes
        }
        guard let bytes = Array(utf8).withUnsafeBufferPointer({ decode(buffer: $0) }) else {
            throw .invalidBase64URL
        }
        return bytes
    }

    static func encode(buffer input: UnsafeBufferPointer<UInt8>) -> String {
        let outputCount = (input.count * 4 + 2) / 3
        return alphabet.withUnsafeBufferPointer { alphabet in
            String(unsafeUninitializedCapacity: outputCount) { output in
                var inIndex = 0
                var outIndex = 0
                while inIndex + 3 <= input.count {
                    let chunk = UInt32(input[inIndex]) << 16 | UInt32(input[inIndex + 1]) << 8 | UInt32(input[inIndex + 2])
                    output[outIndex] = alphabet[Int(chunk >> 18)]
                    output[outIndex + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                    output[outIndex + 2] = alphabet[Int(chunk >> 6 & 0x3F)]
                    output[outIndex + 3] = alphabet[Int(chunk & 0x3F)]
                    inIndex += 3
                    outIndex += 4
                }
                switch input.count - inIndex {
                case 1:
                    let chunk = UInt32(input[inIndex]) << 16
                    output[outIndex] = alphabet[Int(chunk >> 18)]
                    output[outIndex + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                    outIndex += 2
                case 2:
                    let chunk = UInt32(input[inIndex]) << 16 | UInt32(input[inIndex + 1]) << 8
                    output[outIndex] = alphabet[Int(chunk >> 18)]
                    output[outIndex + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                    output[outIndex + 2] = alphabet[Int(chunk >> 6 & 0x3F)]
                    outIndex += 3
                default:
                    break
                }
                return outIndex
            }
        }
    }

    /// How many bytes `count` characters of unpadded base64url decode to; nil for a count that
    /// leaves a lone character.
    static func decodedCount(ofCharacters count: Int) -> Int? {
        let remainder = count & 3
        guard remainder != 1 else { return nil }
        return (count >> 2) * 3 + (remainder == 0 ? 0 : remainder - 1)
    }

    /// Decoded bytes, or nil when `input` is not canonical unpadded base64url.
    static func decode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard let outputCount = decodedCount(ofCharacters: input.count) else { return nil }
        // An array made with capacity 0 is the standard library's one shared empty storage, and
        // filling it writes its count there: a data race with every other thread doing the same.
        guard outputCount > 0 else { return [] }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: outputCount) { output, count in
            valid = decode(buffer: input, into: UnsafeMutableBufferPointer(rebasing: output[0..<outputCount]))
            count = valid ? outputCount : 0
        }
        return valid ? bytes : nil
    }

    /// Decodes `input` into `output`, which must hold exactly ``decodedCount(ofCharacters:)`` bytes;
    /// false (with `output` in an unspecified state) when `input` is not canonical unpadded
    /// base64url. Lets a caller decode into memory it already has, such as a stack buffer.
    static func decode(buffer input: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>) -> Bool {
        guard decodedCount(ofCharacters: input.count) == output.count else { return false }
        let remainder = input.count & 3
        let fullGroups = input.count >> 2
        guard let source = input.baseAddress, let target = output.baseAddress else { return input.isEmpty }
        return decodeTables.withUnsafeBufferPointer { tables -> Bool in
            let t0 = tables.baseAddress.unsafelyUnwrapped
            let t1 = t0 + 256
            let t2 = t0 + 512
            let t3 = t0 + 768
            var group = 0
            var errors: UInt32 = 0
            while group < fullGroups {
                let s = source + group << 2
                let bits = t0[Int(s[0])] | t1[Int(s[1])] | t2[Int(s[2])] | t3[Int(s[3])]
                errors |= bits
                let t = target + group * 3
                t[0] = UInt8(truncatingIfNeeded: bits >> 16)
                t[1] = UInt8(truncatingIfNeeded: bits >> 8)
                t[2] = UInt8(truncatingIfNeeded: bits)
                group += 1
            }
            let s = source + fullGroups << 2
            let t = target + fullGroups * 3
            switch remainder {
            case 2:
                let bits = t0[Int(s[0])] | t1[Int(s[1])]
                // The second character's low 4 bits are unused and must be zero.
                errors |= bits | (bits & 0x0000_F000 == 0 ? 0 : invalid)
                t[0] = UInt8(truncatingIfNeeded: bits >> 16)
            case 3:
                let bits = t0[Int(s[0])] | t1[Int(s[1])] | t2[Int(s[2])]
                // The third character's low 2 bits are unused and must be zero.
                errors |= bits | (bits & 0x0000_00C0 == 0 ? 0 : invalid)
                t[0] = UInt8(truncatingIfNeeded: bits >> 16)
                t[1] = UInt8(truncatingIfNeeded: bits >> 8)
            default:
                break
            }
            // One check at the end: a bad character anywhere leaves the marker bit set.
            return errors & invalid == 0
        }
    }
}
