/// Why a device sign-in ended without tokens.
@nonexhaustive
public enum DevicePollFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The person declined (`access_denied`).
    case accessDenied
    /// The device code expired (`expired_token`, or `expires_in` ran out while waiting); a new
    /// device authorization may start, once the person asks for it again.
    case expired
    /// The provider refused the poll for another reason; polling again cannot help.
    case rejected(ProviderError)
    /// The poll was cancelled.
    case cancelled

    /// The stable code: `access_denied`, `expired_token`, `rejected`, `cancelled`.
    public var code: String {
        switch self {
        case .accessDenied: "access_denied"
        case .expired: "expired_token"
        case .rejected: "rejected"
        case .cancelled: "cancelled"
        }
    }

    /// The code, and for a rejection the provider's short summary (which names no secret).
    public var description: String {
        if case .rejected(let error) = self { return "rejected (\(error.summary))" }
        return code
    }
}
