public import SessionKitJOSE

/// Why a UserInfo fetch gave no claims: the provider could not be asked, or its answer was not
/// accepted.
@nonexhaustive
public enum UserInfoFetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No answer, or an error status (a 401 means the access token was not accepted).
    case provider(ProviderError)
    /// The answer was refused: not a JSON object, no `sub`, or another person's `sub` (OIDC Core
    /// §5.3.2). Its claims must not be used.
    case rejected(UserInfoError)

    /// The provider's summary or the rejection code; never a claim value.
    public var description: String {
        switch self {
        case .provider(let error): "provider: \(error.summary)"
        case .rejected(let error): "rejected: \(error.code)"
        }
    }
}
