/// Why a ``BiometricGate`` call failed. No case carries a stored value.
@nonexhaustive
public enum BiometricGateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The person cancelled, or did not confirm (a failed match, the fallback refused).
    case notConfirmed
    /// The system refused to ask the person now (the app is in the background, the device is locked).
    case interactionNotAllowed
    /// The gate cannot work here, with the reason.
    case unavailable(String)
    /// Another failure, with the system's message (never a value).
    case failed(String)

    /// A short explanation.
    public var description: String {
        switch self {
        case .notConfirmed: "the person did not confirm"
        case .interactionNotAllowed: "the system does not allow asking the person now"
        case .unavailable(let reason): "no biometric gate: \(reason)"
        case .failed(let message): "biometric gate failure: \(message)"
        }
    }
}
