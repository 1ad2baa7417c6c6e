import Foundation

/// What a guest bootstrap hands out: the device-bound access key, the anonymous user it belongs
/// to, and the device it was issued for. There is no refresh token: the key is renewed by
/// bootstrapping again with the stored device secret.
public struct GuestTokens: Sendable, Hashable, CustomStringConvertible {
    /// The access key and its expiry (from `expires_in` and the injected "now").
    public var accessToken: AccessToken
    /// The anonymous user the provider bound the device to.
    public var user: AnonymousBootstrapResponse.User
    /// The device id the key was issued for.
    public var deviceID: String
    /// `true` when the stored secret was refused and the device bootstrapped afresh: the provider
    /// may have started a new guest, so anything kept for the previous one may not be theirs.
    public var startedOver: Bool

    /// Creates guest tokens.
    public init(accessToken: AccessToken, user: AnonymousBootstrapResponse.User, deviceID: String, startedOver: Bool = false) {
        self.accessToken = accessToken
        self.user = user
        self.deviceID = deviceID
        self.startedOver = startedOver
    }

    /// Names the user, the device and the expiry, never the key.
    public var description: String {
        "GuestTokens(user \(user.id), device \(deviceID), expires \(accessToken.expiresAt)\(startedOver ? ", started over" : ""))"
    }
}
