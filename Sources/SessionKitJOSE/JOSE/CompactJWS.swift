/// The JWS compact serialization (RFC 7515 §7.1): `header.payload.signature`.
///
/// Parsing is strict and bounded: at most ``maximumLength`` bytes, exactly three segments, a
/// non-empty header and signature, canonical base64url everywhere, and a strict-JSON header.
public enum CompactJWS {
    /// Largest token accepted, in bytes. ID tokens are a few hundred bytes to a few KiB.
    public static let maximumLength = 16 * 1024

    /// Takes a compact JWS apart without verifying it.
    public static func decode(_ token: some StringProtocol) throws(JOSEError) -> DecodedJWS {
        let utf8 = token.utf8
        if let result = utf8.withContiguousStorageIfAvailable({ decodeCatching(buffer: $0) }) {
            return try result.get()
        }
        return try Array(utf8).withUnsafeBufferPointer { decodeCatching(buffer: $0) }.get()
    }

    private static func decodeCatching(buffer: UnsafeBufferPointer<UInt8>) -> Result<DecodedJWS, JOSEError> {
        do throws(JOSEError) {
            return .success(try decode(buffer: buffer))
        } catch {
            return .failure(error)
        }
    }

    static func decode(buffer token: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> DecodedJWS {
        let (firstDot, secondDot) = try dots(in: token)
        let headerBytes = try segment(token, 0..<firstDot)
        let payload = try segment(token, (firstDot + 1)..<secondDot)
        let signature = try segment(token, (secondDot + 1)..<token.count)
        let header = try JOSEHeader(json: headerBytes)
        return DecodedJWS(
            header: header, payload: payload, signature: signature,
            signingInput: Array(UnsafeBufferPointer(rebasing: token[0..<secondDot])))
    }

    /// The positions of the two dots of a compact JWS within the size cap, with a non-empty
    /// header and signature.
    static func dots(in token: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> (first: Int, second: Int) {
        guard token.count <= maximumLength else { throw .tooLarge }
        var firstDot = -1
        var secondDot = -1
        func found(_ index: Int) throws(JOSEError) {
            if firstDot < 0 {
                firstDot = index
            } else if secondDot < 0 {
                secondDot = index
            } else {
                throw .malformedJWS
            }
        }
        var index = 0
        if let base = token.baseAddress {
            // Eight bytes at a time: a word with no "." byte (the common case) costs a few
            // instructions instead of eight compares.
            while index + 8 <= token.count {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) ^ 0x2E2E_2E2E_2E2E_2E2E
                if (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080 != 0 {
                    for offset in index..<(index + 8) where token[offset] == UInt8(ascii: ".") {
                        try found(offset)
                    }
                }
                index += 8
            }
        }
        while index < token.count {
            if token[index] == UInt8(ascii: ".") { try found(index) }
            index += 1
        }
        guard firstDot > 0, secondDot > firstDot, secondDot < token.count - 1 else { throw .malformedJWS }
        return (firstDot, secondDot)
    }

    /// The decoded bytes of one segment.
    static func segment(_ token: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(JOSEError) -> [UInt8] {
        guard let bytes = Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: token[range])) else {
            throw .invalidBase64URL
        }
        return bytes
    }

    /// Signs `payload` with RS256 under the header `{"alg":"RS256","typ":"JWT"[,"kid":…]}` and
    /// returns the compact serialization. For simulated providers and tests.
    public static func signRS256(payload: [UInt8], keyID: String?, key: RSAPrivateKey) throws(CryptoError) -> String {
        var header = #"{"alg":"RS256","typ":"JWT""#
        if let keyID {
            header += #","kid":"# + JSONWriter.quoted(keyID)
        }
        header += "}"
        return try signRS256(headerJSON: Array(header.utf8), payload: payload, key: key)
    }

    /// Signs `payload` with RS256 under exactly the header bytes given, whatever they say. Tests
    /// use it to build hostile tokens (a wrong `alg`, a `crit`, duplicate members) with valid
    /// signatures.
    public static func signRS256(headerJSON: [UInt8], payload: [UInt8], key: RSAPrivateKey) throws(CryptoError)
        -> String
    {
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payload)
        let signature = try key.signRS256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs `payload` with ES256 under the header `{"alg":"ES256","typ":"JWT"[,"kid":…]}` and
    /// returns the compact serialization. For simulated providers and tests.
    public static func signES256(payload: [UInt8], keyID: String?, key: P256PrivateKey) throws(CryptoError) -> String {
        var header = #"{"alg":"ES256","typ":"JWT""#
        if let keyID {
            header += #","kid":"# + JSONWriter.quoted(keyID)
        }
        header += "}"
        return try signES256(headerJSON: Array(header.utf8), payload: payload, key: key)
    }

    /// Signs `payload` with ES256 (the signature as `r || s`) under exactly the header bytes given,
    /// whatever they say. Tests use it to build hostile tokens with valid signatures.
    public static func signES256(headerJSON: [UInt8], payload: [UInt8], key: P256PrivateKey) throws(CryptoError)
        -> String
    {
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payload)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }
}
