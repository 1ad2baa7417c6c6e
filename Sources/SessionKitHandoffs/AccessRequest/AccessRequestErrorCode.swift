/// The errors 1Password's access-request protocol names.
@nonexhaustive
public enum AccessRequestErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 1Password could not read the request JSON.
    case requestDecodeFailure
    /// The shared item carried no access request.
    case missingRequest
    /// The request's version is one this 1Password does not speak.
    case unsupportedVersion
    /// The person declined the request.
    case declined
    /// 1Password failed internally; the same request may be presented again later.
    case internalError

    /// The protocol's name for the error.
    public var description: String { rawValue }
}
