/// Why bytes offered as an ``AccessGrant`` were rejected.
///
/// Cases name the rule and the member's path (`resolved[1].reference`), never a value, so they
/// are safe to log.
@nonexhaustive
public enum AccessGrantDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// More bytes than any grant needs.
    case tooLarge
    /// Not one strict JSON value (RFC 8259, UTF-8, no duplicate member names).
    case invalidJSON
    /// JSON, but not an object.
    case notAnObject
    /// A required member is absent (`path`, `state` or `resolved`).
    case missingField(String)
    /// A member has the wrong JSON type (a non-list `resolved`, a number for a string).
    case wrongType(String)
    /// A member has the right type but an impossible value (an empty reference).
    case invalidValue(String)
    /// `state` is not one of the protocol's states.
    case unknownState
    /// Two entries name the same `entryId`, so matching by id would be ambiguous.
    case duplicateEntryID

    /// The rule that was broken.
    public var description: String {
        switch self {
        case .tooLarge: "the grant is too large"
        case .invalidJSON: "the grant is not valid JSON"
        case .notAnObject: "the grant is not a JSON object"
        case .missingField(let path): "the grant has no \(path)"
        case .wrongType(let path): "the grant's \(path) has the wrong type"
        case .invalidValue(let path): "the grant's \(path) has an invalid value"
        case .unknownState: "the grant's state is not a known state"
        case .duplicateEntryID: "the grant names an entryId twice"
        }
    }
}
