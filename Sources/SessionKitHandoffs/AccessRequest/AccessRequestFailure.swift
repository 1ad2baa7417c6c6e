/// Why an access request failed.
@nonexhaustive
public enum AccessRequestFailure: Sendable, Hashable, CustomStringConvertible {
    /// 1Password could not read the request: fix the request, do not retry.
    case requestDecodeFailure
    /// 1Password found no request in the shared item: fix the request, do not retry.
    case missingRequest
    /// This 1Password does not speak the request's version: ask the person to update 1Password.
    case unsupportedVersion
    /// 1Password failed internally: the same reference may be presented again later, unchanged.
    case internalError
    /// An error this library does not know, by domain and number.
    case unrecognized(domain: String, number: Int)
    /// The returned grant could not be decoded.
    case unreadableGrant(AccessGrantDecodingError)

    /// The failure's name and, for an unreadable grant, the broken rule.
    public var description: String {
        switch self {
        case .requestDecodeFailure: "requestDecodeFailure"
        case .missingRequest: "missingRequest"
        case .unsupportedVersion: "unsupportedVersion"
        case .internalError: "internalError"
        case .unrecognized(let domain, let number): "unrecognized error \(domain) \(number)"
        case .unreadableGrant(let error): "unreadable grant: \(error)"
        }
    }
}
