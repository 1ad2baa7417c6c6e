public import SessionKitCore

/// The gate of a platform without one: every call says ``BiometricAvailability/unavailable(_:)``.
///
/// ``HighAssuranceVault/platformGate(service:)`` returns it wherever the Security and
/// LocalAuthentication frameworks are missing (Linux, Windows); an app there that has its own
/// biometric hardware supplies its own ``BiometricGate`` instead.
public struct UnavailableBiometricGate: BiometricGate {
    /// Why there is no gate.
    public let reason: String

    /// Creates the gate; `reason` is what every call reports.
    public init(reason: String = "this platform has no biometric gate; supply a BiometricGate") {
        self.reason = reason
    }

    /// Always unavailable.
    public func availability() async -> BiometricAvailability { .unavailable(reason) }
    /// Always throws ``BiometricGateError/unavailable(_:)``.
    public func store(_ payload: Secret, metadata: [UInt8]) async throws(BiometricGateError) { throw .unavailable(reason) }
    /// Nothing is ever stored.
    public func storedMetadata() async throws(BiometricGateError) -> [UInt8]? { nil }
    /// Always throws ``BiometricGateError/unavailable(_:)``.
    public func read(reason: String) async throws(BiometricGateError) -> Secret? { throw .unavailable(self.reason) }
    /// Nothing to remove.
    public func remove() async throws(BiometricGateError) {}
}
