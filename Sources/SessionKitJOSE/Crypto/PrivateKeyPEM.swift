/// A private key read from PEM text (RFC 7468): an RSA key (RS256) or a P-256 key (ES256), as an
/// app loads its client key for `private_key_jwt` from a file.
///
/// Accepted forms, unencrypted only:
/// - `PRIVATE KEY`: PKCS #8 `PrivateKeyInfo` (RFC 5208, RFC 5958) holding `rsaEncryption` or
///   `id-ecPublicKey` on the curve P-256;
/// - `RSA PRIVATE KEY`: PKCS #1 `RSAPrivateKey` (RFC 8017 §A.1.2);
/// - `EC PRIVATE KEY`: SEC 1 `ECPrivateKey` (RFC 5915) on P-256, with its public key.
///
/// Explanatory text around the block and an `EC PARAMETERS` block before it (as
/// `openssl ecparam -genkey` writes) are skipped. Anything else is a typed ``PrivateKeyPEMError``;
/// nothing parsed ever shows key material.
@nonexhaustive
public enum PrivateKeyPEM: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// An RSA key of at least 2048 bits, checked for consistency.
    case rsa(RSAPrivateKey)
    /// A P-256 key whose scalar belongs to its public point.
    case p256(P256PrivateKey)

    /// Reads the single private key in `text`.
    public static func decode(_ text: some StringProtocol) throws(PrivateKeyPEMError) -> PrivateKeyPEM {
        try decode(bytes: Array(text.utf8))
    }

    /// Reads the single private key in the UTF-8 (or ASCII) bytes of a PEM file.
    public static func decode(bytes: [UInt8]) throws(PrivateKeyPEMError) -> PrivateKeyPEM {
        let block = try PEMArmor.privateKeyBlock(in: bytes)
        switch block.label {
        case "PRIVATE KEY": return try PrivateKeyDER.pkcs8(block.der)
        case "RSA PRIVATE KEY": return try PrivateKeyDER.rsa(pkcs1: block.der)
        case "EC PRIVATE KEY": return try PrivateKeyDER.p256(sec1: block.der, curveFromAlgorithm: nil)
        default: throw .notAPrivateKey
        }
    }

    /// The key type only.
    public var description: String {
        switch self {
        case .rsa: "PrivateKeyPEM.rsa(redacted)"
        case .p256: "PrivateKeyPEM.p256(redacted)"
        }
    }

    /// The key type only.
    public var debugDescription: String { description }

    /// No children: `dump` and debuggers show the key type only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
}

/// Why PEM text did not give a private key. No case carries any of the input.
@nonexhaustive
public enum PrivateKeyPEMError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `-----BEGIN …-----` / `-----END …-----` block at all, or one left open.
    case notPEM
    /// PEM blocks, but none holds a private key (a certificate, a public key).
    case notAPrivateKey
    /// An encrypted key (`ENCRYPTED PRIVATE KEY`, or a `Proc-Type: 4,ENCRYPTED` header): decrypt it
    /// first (`openssl pkey -in key.pem -out plain.pem`) and keep the file's permissions tight.
    case encrypted
    /// More than one private key; which one to use is not guessed.
    case severalKeys
    /// The block's body is not valid base64.
    case invalidBase64
    /// The DER inside does not parse as the structure its label names.
    case malformedKey
    /// A key of a type other than RSA or EC (Ed25519, DSA, …).
    case unsupportedKeyType
    /// An EC key on a curve other than P-256.
    case unsupportedCurve
    /// A SEC 1 EC key without its public key, which this reader does not derive.
    case missingPublicKey
    /// The crypto backend refused the key: an RSA modulus under 2048 bits, an inconsistent RSA key,
    /// or an EC scalar that does not belong to its public point.
    case keyRejected

    /// What went wrong, without any of the input.
    public var description: String {
        switch self {
        case .notPEM: "not PEM text: no complete BEGIN/END block"
        case .notAPrivateKey: "no private key among the PEM blocks"
        case .encrypted: "the private key is encrypted; decrypt it first"
        case .severalKeys: "more than one private key in the PEM text"
        case .invalidBase64: "the PEM block's body is not valid base64"
        case .malformedKey: "the key's DER encoding is malformed"
        case .unsupportedKeyType: "the key is neither RSA nor EC"
        case .unsupportedCurve: "the EC key is not on P-256"
        case .missingPublicKey: "the EC key carries no public key"
        case .keyRejected: "the key was refused (an RSA key under 2048 bits or inconsistent, or an EC key whose parts do not match)"
        }
    }
}

/// The RFC 7468 armor: finds the one private key block and decodes its base64 body.
enum PEMArmor {
    struct Block {
        var label: String
        var der: [UInt8]
    }

    static let privateKeyLabels: Set<String> = ["PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"]

    static func privateKeyBlock(in bytes: [UInt8]) throws(PrivateKeyPEMError) -> Block {
        let lines = String(decoding: bytes, as: UTF8.self).split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            .map { $0.trimmingSpaces }
        var blocks: [(label: String, body: [Substring])] = []
        var open: (label: String, body: [Substring])?
        for line in lines {
            if let label = boundary(line, "BEGIN") {
                guard open == nil else { throw .notPEM }
                open = (label, [])
            } else if let label = boundary(line, "END") {
                guard let current = open, current.label == label else { throw .notPEM }
                blocks.append(current)
                open = nil
            } else if open != nil {
                open?.body.append(line)
            }
        }
        guard open == nil, !blocks.isEmpty else { throw .notPEM }
        if blocks.contains(where: { $0.label == "ENCRYPTED PRIVATE KEY" }) { throw .encrypted }
        let keys = blocks.filter { privateKeyLabels.contains($0.label) }
        guard let key = keys.first else { throw .notAPrivateKey }
        guard keys.count == 1 else { throw .severalKeys }
        // RFC 1421 headers (`Proc-Type: 4,ENCRYPTED`, `DEK-Info: …`) mean OpenSSL's legacy encryption.
        if key.body.contains(where: { $0.hasPrefix("Proc-Type:") && $0.contains("ENCRYPTED") }) { throw .encrypted }
        guard let der = Base64Standard.decode(key.body.joined()) else { throw .invalidBase64 }
        guard !der.isEmpty else { throw .malformedKey }
        return Block(label: key.label, der: der)
    }

    /// The label of a `-----BEGIN label-----` (or END) line.
    private static func boundary(_ line: Substring, _ kind: String) -> String? {
        let prefix = "-----\(kind) "
        guard line.hasPrefix(prefix), line.hasSuffix("-----"), line.count >= prefix.count + 5 else { return nil }
        return String(line.dropFirst(prefix.count).dropLast(5))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" || last == "\r" { result = result.dropLast() }
        return result
    }
}

/// Strict standard base64 (RFC 4648 §4) with optional padding, for PEM bodies.
enum Base64Standard {
    static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            // Data after padding is not base64.
            guard padding == 0, let value = value(of: byte) else { return nil }
            values.append(value)
        }
        guard padding <= 2, values.count % 4 != 1, padding == 0 || (values.count + padding) % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(values.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let chunk =
                UInt32(values[index]) << 18 | UInt32(values[index + 1]) << 12 | UInt32(values[index + 2]) << 6 | UInt32(values[index + 3])
            output += [UInt8(truncatingIfNeeded: chunk >> 16), UInt8(truncatingIfNeeded: chunk >> 8), UInt8(truncatingIfNeeded: chunk)]
            index += 4
        }
        switch values.count - index {
        case 2:
            guard values[index + 1] & 0x0F == 0 else { return nil }
            output.append(values[index] << 2 | values[index + 1] >> 4)
        case 3:
            guard values[index + 2] & 0x03 == 0 else { return nil }
            output.append(values[index] << 2 | values[index + 1] >> 4)
            output.append(values[index + 1] << 4 | values[index + 2] >> 2)
        default: break
        }
        return output
    }

    private static func value(of byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}

/// The DER structures inside the PEM blocks, read strictly (definite lengths, minimal length
/// octets, nothing left over).
enum PrivateKeyDER {
    /// `rsaEncryption`, 1.2.840.113549.1.1.1.
    static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    /// `id-ecPublicKey`, 1.2.840.10045.2.1.
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// `prime256v1` (P-256), 1.2.840.10045.3.1.7.
    static let prime256v1: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]

    /// PKCS #8 `PrivateKeyInfo` (version 0) or `OneAsymmetricKey` (version 1).
    static func pkcs8(_ der: [UInt8]) throws(PrivateKeyPEMError) -> PrivateKeyPEM {
        var outer = DERReader(der)
        var info = try outer.read(tag: 0x30)
        try outer.finish()
        let version = try info.read(tag: 0x02)
        guard version.remaining == [0x00] || version.remaining == [0x01] else { throw .malformedKey }
        var algorithm = try info.read(tag: 0x30)
        let oid = try algorithm.read(tag: 0x06).remaining
        let privateKey = try info.read(tag: 0x04).remaining
        // Attributes [0] and a public key [1] may follow; neither is needed.
        if oid == rsaEncryption {
            // Parameters: NULL, or absent.
            if !algorithm.isAtEnd {
                guard try algorithm.read(tag: 0x05).remaining.isEmpty else { throw .malformedKey }
            }
            try algorithm.finish()
            return try rsa(pkcs1: privateKey)
        }
        if oid == ecPublicKey {
            guard !algorithm.isAtEnd else { throw .malformedKey }
            let curve = try algorithm.peekTag() == 0x06 ? algorithm.read(tag: 0x06).remaining : nil
            try algorithm.finish()
            // Explicit curve parameters instead of a named curve are not accepted.
            guard let curve else { throw .unsupportedCurve }
            guard curve == prime256v1 else { throw .unsupportedCurve }
            return try p256(sec1: privateKey, curveFromAlgorithm: curve)
        }
        throw .unsupportedKeyType
    }

    /// PKCS #1 `RSAPrivateKey`, handed to the backend after a structural check.
    static func rsa(pkcs1 der: [UInt8]) throws(PrivateKeyPEMError) -> PrivateKeyPEM {
        var outer = DERReader(der)
        var key = try outer.read(tag: 0x30)
        try outer.finish()
        // version, n, e, d, p, q, dP, dQ, qInv: two-prime keys only (version 0).
        guard try key.read(tag: 0x02).remaining == [0x00] else { throw .unsupportedKeyType }
        for _ in 0..<8 { _ = try key.read(tag: 0x02) }
        try key.finish()
        do {
            return .rsa(try RSAPrivateKey(pkcs1DER: der))
        } catch {
            throw .keyRejected
        }
    }

    /// SEC 1 `ECPrivateKey`: version 1, the scalar, optional [0] curve, [1] public key.
    static func p256(sec1 der: [UInt8], curveFromAlgorithm: [UInt8]?) throws(PrivateKeyPEMError) -> PrivateKeyPEM {
        var outer = DERReader(der)
        var key = try outer.read(tag: 0x30)
        try outer.finish()
        guard try key.read(tag: 0x02).remaining == [0x01] else { throw .malformedKey }
        let scalarOctets = try key.read(tag: 0x04).remaining
        var curve = curveFromAlgorithm
        var point: [UInt8]?
        if !key.isAtEnd, try key.peekTag() == 0xA0 {
            var parameters = try key.read(tag: 0xA0)
            guard try parameters.peekTag() == 0x06 else { throw .unsupportedCurve }
            let named = try parameters.read(tag: 0x06).remaining
            try parameters.finish()
            if let curve, curve != named { throw .malformedKey }
            curve = named
        }
        if !key.isAtEnd, try key.peekTag() == 0xA1 {
            var publicKey = try key.read(tag: 0xA1)
            let bits = try publicKey.read(tag: 0x03).remaining
            try publicKey.finish()
            // No unused bits, then the uncompressed point.
            guard bits.first == 0x00 else { throw .malformedKey }
            point = Array(bits.dropFirst())
        }
        try key.finish()
        guard let curve else { throw .unsupportedCurve }
        guard curve == prime256v1 else { throw .unsupportedCurve }
        // RFC 5915: the scalar is ceiling(log2(n)/8) = 32 octets; shorter encodings are padded.
        guard !scalarOctets.isEmpty, scalarOctets.count <= 32 else { throw .malformedKey }
        let scalar = [UInt8](repeating: 0, count: 32 - scalarOctets.count) + scalarOctets
        guard let point else { throw .missingPublicKey }
        guard point.count == 65, point[0] == 0x04 else { throw .malformedKey }
        do {
            return .p256(try P256PrivateKey(scalar: scalar, x: Array(point[1..<33]), y: Array(point[33..<65])))
        } catch {
            throw .keyRejected
        }
    }
}

/// Reads DER elements (tag, definite length, contents) from a byte array.
struct DERReader {
    private let bytes: [UInt8]
    private var index: Int
    private let end: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.index = 0
        self.end = bytes.count
    }

    private init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        self.index = range.lowerBound
        self.end = range.upperBound
    }

    var isAtEnd: Bool { index == end }

    /// The unread contents.
    var remaining: [UInt8] { Array(bytes[index..<end]) }

    func peekTag() throws(PrivateKeyPEMError) -> UInt8 {
        guard index < end else { throw .malformedKey }
        return bytes[index]
    }

    /// The next element, which must carry `tag`, as a reader over its contents.
    mutating func read(tag: UInt8) throws(PrivateKeyPEMError) -> DERReader {
        guard index < end, bytes[index] == tag else { throw .malformedKey }
        var cursor = index + 1
        guard cursor < end else { throw .malformedKey }
        let first = bytes[cursor]
        cursor += 1
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            let count = Int(first & 0x7F)
            // No indefinite lengths, at most 4 length octets, minimal encoding.
            guard count >= 1, count <= 4, cursor + count <= end, bytes[cursor] != 0 else { throw .malformedKey }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[cursor])
                cursor += 1
            }
            guard length >= 0x80 else { throw .malformedKey }
        }
        guard length <= end - cursor else { throw .malformedKey }
        index = cursor + length
        return DERReader(bytes: bytes, range: cursor..<(cursor + length))
    }

    /// Fails unless everything was read.
    func finish() throws(PrivateKeyPEMError) {
        guard isAtEnd else { throw .malformedKey }
    }
}
