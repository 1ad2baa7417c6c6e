public import SessionKitCore

/// Keeps one item behind the person's biometric confirmation: the seam under ``HighAssuranceVault``.
///
/// On Apple platforms `KeychainBiometricGate` is a Keychain item created with
/// `.biometryCurrentSet` access control. Elsewhere there is none unless the app supplies its own
/// (``UnavailableBiometricGate`` says so); the test kit's `ScriptedBiometricGate` plays one in tests.
///
/// A gate stores two things: the payload, readable only after the person confirms, and a small
/// non-secret metadata record readable without asking, so the vault can decide whether asking is
/// worth it (nothing kept, expired, another account) and can tell "the biometrics changed" (the
/// metadata is there, the protected payload is gone) from "nothing was ever kept".
public protocol BiometricGate: Sendable {
    /// Whether an item can be gated on the person's biometrics on this device right now.
    func availability() async -> BiometricAvailability
    /// Stores `payload` behind biometric access control and `metadata` beside it, replacing any
    /// earlier item. Storing does not ask the person.
    func store(_ payload: Secret, metadata: [UInt8]) async throws(BiometricGateError)
    /// The metadata stored with the item, read without asking the person; `nil` when nothing is stored.
    func storedMetadata() async throws(BiometricGateError) -> [UInt8]?
    /// Asks the person to confirm, showing `reason`, and returns the payload; `nil` when the
    /// protected payload is gone (on Apple: invalidated because the enrolled biometrics changed).
    func read(reason: String) async throws(BiometricGateError) -> Secret?
    /// Removes the payload and its metadata; removing nothing succeeds.
    func remove() async throws(BiometricGateError)
}
