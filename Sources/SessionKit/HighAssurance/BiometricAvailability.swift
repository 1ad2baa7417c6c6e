/// Whether a ``BiometricGate`` can protect an item on this device right now.
@nonexhaustive
public enum BiometricAvailability: Sendable, Hashable, CustomStringConvertible {
    /// Biometrics are set up: items can be stored and read with the person's confirmation.
    case available
    /// The device could use biometrics, but none are enrolled.
    case notEnrolled
    /// No biometric gate here, with the reason (no hardware, locked out, no gate on this platform).
    case unavailable(String)

    /// A short phrase for logs.
    public var description: String {
        switch self {
        case .available: "available"
        case .notEnrolled: "no biometrics enrolled"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }
}
