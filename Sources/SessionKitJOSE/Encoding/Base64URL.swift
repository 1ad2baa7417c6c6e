/// Base64url without padding (RFC 4648 §5, as JOSE uses it, RFC 7515 §2).
///
/// Decoding is strict: only the 64 alphabet characters, no `=` padding, no whitespace, no
/// length that leaves a lone character, and the unused low bits of the last character must be
/// zero. That makes every byte string have exactly one accepted encoding, so two different
/// texts never verify as the same token.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks a byte outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
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

    /// Decoded bytes, or nil when `input` is not canonical unpadded base64url.
    static func decode(buffer input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let remainder = input.count % 4
        guard remainder != 1 else { return nil }
        let outputCount = input.count * 3 / 4
        var valid = true
        let bytes = decodeTable.withUnsafeBufferPointer { table in
            [UInt8](unsafeUninitializedCapacity: outputCount) { output, count in
                var inIndex = 0
                var outIndex = 0
                // OR-ing the table values lets one test per chunk catch any 0xFF marker.
                while inIndex + 4 <= input.count {
                    let a = table[Int(input[inIndex])]
                    let b = table[Int(input[inIndex + 1])]
                    let c = table[Int(input[inIndex + 2])]
                    let d = table[Int(input[inIndex + 3])]
                    if (a | b | c | d) & 0xC0 != 0 {
                        valid = false
                        break
                    }
                    let chunk = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                    output[outIndex] = UInt8(truncatingIfNeeded: chunk >> 16)
                    output[outIndex + 1] = UInt8(truncatingIfNeeded: chunk >> 8)
                    output[outIndex + 2] = UInt8(truncatingIfNeeded: chunk)
                    inIndex += 4
                    outIndex += 3
                }
                if valid {
                    switch remainder {
                    case 2:
                        let a = table[Int(input[inIndex])]
                        let b = table[Int(input[inIndex + 1])]
                        // The last character carries 4 unused bits, which must be zero.
                        if (a | b) & 0xC0 != 0 || b & 0x0F != 0 {
                            valid = false
                        } else {
                            output[outIndex] = a << 2 | b >> 4
                            outIndex += 1
                        }
                    case 3:
                        let a = table[Int(input[inIndex])]
                        let b = table[Int(input[inIndex + 1])]
                        let c = table[Int(input[inIndex + 2])]
                        // The last character carries 2 unused bits, which must be zero.
                        if (a | b | c) & 0xC0 != 0 || c & 0x03 != 0 {
                            valid = false
                        } else {
                            output[outIndex] = a << 2 | b >> 4
                            output[outIndex + 1] = (b & 0x0F) << 4 | c >> 2
                            outIndex += 2
                        }
                    default:
                        break
                    }
                }
                count = valid ? outIndex : 0
            }
        }
        return valid ? bytes : nil
    }
}
