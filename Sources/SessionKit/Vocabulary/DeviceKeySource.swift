/// Where a session's device-bound keys come from (1pass.dev's app disconnect presents one).
@nonexhaustive
public enum DeviceKeySource: Sendable {
    /// A ``DeviceKeyManager`` made from the session's transport and store when the provider profile
    /// has device-key exchange and the store keeps device credentials (``DeviceCredentialStore``);
    /// none otherwise. The default of every initialiser.
    case automatic
    /// No device keys: an account deletion that needs one says so.
    case none
    /// This source.
    case custom(any DeviceKeyProviding)
}
