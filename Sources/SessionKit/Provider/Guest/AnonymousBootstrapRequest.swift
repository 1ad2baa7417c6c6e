public import SessionKitCore

/// What one guest bootstrap sends: the device's id, its stored secret once known, and an optional
/// display name. The platform comes from the ``AnonymousBootstrapProfile``.
public struct AnonymousBootstrapRequest: Sendable, Hashable, CustomStringConvertible {
    /// The device's stable id, created once per installation.
    public var deviceID: String
    /// The secret the provider issued for this device, once known; `nil` asks for a fresh bootstrap.
    public var deviceSecret: Secret?
    /// A display name for the device, sent when the profile has a field for it.
    public var deviceName: String?

    /// Creates a request.
    public init(deviceID: String, deviceSecret: Secret? = nil, deviceName: String? = nil) {
        self.deviceID = deviceID
        self.deviceSecret = deviceSecret
        self.deviceName = deviceName
    }

    /// Names the device id and says whether a secret is sent, never the secret.
    public var description: String {
        "AnonymousBootstrapRequest(device \(deviceID), \(deviceSecret == nil ? "no secret" : "secret <redacted>"))"
    }
}
