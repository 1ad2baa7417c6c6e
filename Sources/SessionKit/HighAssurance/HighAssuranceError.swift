/// Why the high-assurance token could not be kept, read or removed.
@nonexhaustive
public enum HighAssuranceError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The sign-in asked for no step-up (no `max_age`, no essential `acr`, no `prompt=login`):
    /// its result is not worth a biometric gate.
    case notAStepUp
    /// The step-up is older than the `max_age` it asked for.
    case stepUpTooOld
    /// The verified `acr` is none of the essential values asked for.
    case acrNotSatisfied
    /// The access token has already expired.
    case expired
    /// The reason shown to the person is empty; the system requires one.
    case emptyReason
    /// There is no biometric gate here, or no biometrics are enrolled, with the reason.
    case unavailable(String)
    /// The gate failed.
    case gate(BiometricGateError)
    /// The calling task was cancelled while it waited for its turn at the vault.
    case cancelled
    /// The vault was shut down (``HighAssuranceVault/shutdown()``).
    case shutDown

    /// A short explanation without any token.
    public var description: String {
        switch self {
        case .notAStepUp: "the sign-in asked for no step-up (max_age, essential acr or prompt=login)"
        case .stepUpTooOld: "the step-up is older than its max_age"
        case .acrNotSatisfied: "the verified acr is not one of the essential values"
        case .expired: "the access token has expired"
        case .emptyReason: "the reason shown to the person is empty"
        case .unavailable(let reason): "no biometric gate: \(reason)"
        case .gate(let error): "\(error)"
        case .cancelled: "cancelled while waiting for the vault"
        case .shutDown: "the vault was shut down"
        }
    }
}
