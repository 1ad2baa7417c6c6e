/// The framing around every stored payload, on disk and in the Keychain.
///
/// ```
/// offset  size  field
///      0     8  magic 89 53 4B 53 0D 0A 1A 0A   ("\x89SKS\r\n\x1a\n")
///      8     4  kind, ASCII: "CRED" (credential record), "DEVC" (device credential),
///                 "GSTC" (guest credential) or "CXIL" (used credential-import tokens)
///     12     4  schema version, big-endian
///     16     8  payload length n, big-endian
///     24     n  payload (JSON)
///   24+n    32  SHA-256 of bytes 0 ..< 24+n
/// ```
///
/// The frame itself never changes between schema versions; only the payload does. That is what
/// lets a build tell "written by a newer version" (a valid frame with a higher version) from
/// "damaged" (anything that fails the length or digest checks). The magic's first byte is not
/// ASCII and the CR LF / LF pair catches line-ending conversion, as in PNG.
package enum StoreEnvelope {
    /// Which record a frame holds, so a device file copied over the credentials file is caught.
    package enum Kind: Sendable {
        case credentials
        case device
        case guest
        case importLedger
        case registration

        var tag: [UInt8] {
            switch self {
            case .credentials: Array("CRED".utf8)
            case .device: Array("DEVC".utf8)
            case .guest: Array("GSTC".utf8)
            case .importLedger: Array("CXIL".utf8)
            case .registration: Array("CREG".utf8)
            }
        }

        /// What the frame holds, for error messages: "credential record", "device credential" …
        package var noun: String {
            switch self {
            case .credentials: "credential record"
            case .device: "device credential"
            case .guest: "guest credential"
            case .importLedger: "import token ledger"
            case .registration: "client registration"
            }
        }
    }

    /// The eight bytes every frame starts with.
    package static let magic: [UInt8] = [0x89, 0x53, 0x4B, 0x53, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Magic, kind, schema version and payload length.
    package static let headerSize = 24
    /// The SHA-256 at the end.
    package static let digestSize = 32
    /// Far above any real record; a larger length field is damage, not data.
    static let maximumPayloadSize = 4 << 20

    /// Frames `payload`.
    package static func seal(_ payload: [UInt8], kind: Kind, schemaVersion: Int) -> [UInt8] {
        var bytes = magic
        bytes.reserveCapacity(headerSize + payload.count + digestSize)
        bytes += kind.tag
        bytes += bigEndianBytes(UInt32(truncatingIfNeeded: schemaVersion))
        bytes += bigEndianBytes(UInt64(payload.count))
        bytes += payload
        bytes += StoreDigest.sha256(bytes)
        return bytes
    }

    /// Checks a frame and returns its schema version and payload.
    ///
    /// Throws ``CredentialStoreError/corrupted(_:)`` for anything truncated, zeroed, padded or
    /// altered, and ``CredentialStoreError/unsupportedSchemaVersion(found:supported:)`` for an
    /// intact frame from a newer version. Messages describe the damage, never the content.
    package static func open(
        _ bytes: [UInt8], kind: Kind, supportedVersion: Int
    ) throws(CredentialStoreError) -> (schemaVersion: Int, payload: ArraySlice<UInt8>) {
        let noun = kind.noun
        guard !bytes.isEmpty else { throw .corrupted("the \(noun) file is empty") }
        guard bytes.count >= headerSize + digestSize else {
            throw .corrupted("the \(noun) file is truncated (\(bytes.count) bytes)")
        }
        guard bytes[0..<8].elementsEqual(magic) else {
            if bytes.allSatisfy({ $0 == 0 }) { throw .corrupted("the \(noun) file is zeroed") }
            throw .corrupted("the \(noun) file does not start with the store's signature")
        }
        let length = readBigEndian(bytes[16..<24])
        guard length <= UInt64(maximumPayloadSize) else {
            throw .corrupted("the \(noun) file's length field is damaged")
        }
        let payloadEnd = headerSize + Int(length)
        guard bytes.count == payloadEnd + digestSize else {
            let state = bytes.count < payloadEnd + digestSize ? "truncated" : "followed by extra bytes"
            throw .corrupted("the \(noun) file is \(state) (\(bytes.count) bytes, frame says \(payloadEnd + digestSize))")
        }
        guard StoreDigest.sha256(bytes[0..<payloadEnd]).elementsEqual(bytes[payloadEnd...]) else {
            throw .corrupted("the \(noun) file fails its checksum")
        }
        guard bytes[8..<12].elementsEqual(kind.tag) else {
            throw .corrupted("the \(noun) file holds a different kind of record")
        }
        let version = Int(readBigEndian(bytes[12..<16]))
        guard version <= supportedVersion else {
            throw .unsupportedSchemaVersion(found: version, supported: supportedVersion)
        }
        guard version >= 1 else { throw .corrupted("the \(noun) file names schema version \(version)") }
        return (version, bytes[headerSize..<payloadEnd])
    }

    private static func bigEndianBytes<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        (0..<Value.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    private static func readBigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
