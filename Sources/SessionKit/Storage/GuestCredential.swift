public import SessionKitCore

/// The device credential of a guest ("anonymous-first") session: the device's id and, once the
/// provider issued it, its secret.
///
/// It lives in a ``GuestCredentialStore`` slot of its own, apart from the refresh token and from
/// the signed-in session's ``DeviceCredential``. The secret is a `Secret`: it never shows in a
/// description, a dump or an error.
public struct GuestCredential: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The stable id of this installation as the bootstrap names it.
    public var deviceID: String
    /// The secret the provider issued for this device, once known.
    public var deviceSecret: Secret?

    /// Creates a guest credential.
    public init(deviceID: String, deviceSecret: Secret? = nil) {
        self.deviceID = deviceID
        self.deviceSecret = deviceSecret
    }

    /// Names the device id and whether a secret is held, never the secret.
    public var description: String {
        "GuestCredential(device \(deviceID), \(deviceSecret == nil ? "no secret" : "secret <redacted>"))"
    }
}
