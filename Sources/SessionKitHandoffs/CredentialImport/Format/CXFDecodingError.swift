/// Why bytes offered as Credential Exchange Format data were rejected.
///
/// Cases name the rule and the member's path (`accounts[0].items[3].credentials[1].key`), never a
/// value, so they are safe to log.
@nonexhaustive
public enum CXFDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// More bytes than the decoder accepts.
    case tooLarge
    /// Not one strict JSON value (RFC 8259, UTF-8, no duplicate member names).
    case invalidJSON
    /// JSON, but not an object.
    case notAnObject
    /// Objects and lists nested deeper than ``CXFDocument/maximumNestingDepth``, which is far
    /// deeper than any exporter writes.
    case nestingTooDeep
    /// The data is in a version the app does not declare.
    case unsupportedVersion(found: CXFVersion, supported: [CXFVersion])
    /// A required member is absent.
    case missingField(String)
    /// A member has the wrong JSON type.
    case wrongType(String)
    /// A member has the right type but a value the format does not allow (bad base64url, a
    /// field type that does not fit, a number out of range).
    case invalidValue(String)

    /// The rule that was broken.
    public var description: String {
        switch self {
        case .tooLarge: "the credential data is too large"
        case .invalidJSON: "the credential data is not valid JSON"
        case .notAnObject: "the credential data is not a JSON object"
        case .nestingTooDeep: "the credential data nests deeper than \(CXFDocument.maximumNestingDepth) levels"
        case .unsupportedVersion(let found, let supported):
            "the credential data is in version \(found); supported: \(supported.map(\.description).joined(separator: ", "))"
        case .missingField(let path): "the credential data has no \(path)"
        case .wrongType(let path): "the credential data's \(path) has the wrong type"
        case .invalidValue(let path): "the credential data's \(path) has an invalid value"
        }
    }
}
