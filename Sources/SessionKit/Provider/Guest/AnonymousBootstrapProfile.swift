public import Foundation

/// How a provider bootstraps a guest ("anonymous-first") session from the device: the endpoint,
/// the JSON field names of the request and the answer, and the platform value sent.
///
/// The first bootstrap sends the device's id and platform, and the answer carries a device secret
/// exactly once; later bootstraps send the stored secret and get a fresh device-bound access key.
///
/// Two shapes are known for 1pass.dev:
/// - ``onePass(issuer:)``, the default: the reference SDK's current contract,
///   `POST /api/v1/auth/anonymous_bootstrap` with `{device_id, device_platform, device_secret?,
///   device_name?}`, answered with `{access_token, token_type, expires_in?, device_secret?, user:
///   {id, anonymous, nickname?}}`.
/// - ``deviceRegistration(issuer:)``: the integration guide's manual description,
///   `POST /api/v1/devices` with `{device_uuid, platform}`. The guide does not spell out the
///   answer, so this preset reads the SDK's answer fields; change them if a deployment differs.
///
/// SessionKit follows the SDK by default: it is the code the provider ships and tests against,
/// and its answer is fully specified.
public struct AnonymousBootstrapProfile: Sendable, Hashable {
    /// Where the bootstrap is sent (`POST`, JSON body).
    public var endpoint: URL
    /// The request field carrying the device's stable id.
    public var deviceIDField: String
    /// The request field carrying the platform value.
    public var platformField: String
    /// The request field carrying the stored device secret, and the answer field carrying a new
    /// one; `nil` when the provider takes no secret.
    public var deviceSecretField: String?
    /// The request field carrying a display name for the device, if the provider takes one.
    public var deviceNameField: String?
    /// The platform value sent, e.g. `ios` or `macos`.
    public var platform: String
    /// The answer field holding the access key.
    public var accessTokenField: String
    /// The answer field holding the key's type (`Bearer`).
    public var tokenTypeField: String
    /// The answer field holding the key's lifetime in seconds (optional in the answer).
    public var expiresInField: String
    /// The answer field holding the guest user (an object with `id`, `anonymous`, `nickname`).
    public var userField: String

    /// Creates a profile from explicit values.
    public init(
        endpoint: URL, deviceIDField: String = "device_id", platformField: String = "device_platform",
        deviceSecretField: String? = "device_secret", deviceNameField: String? = "device_name",
        platform: String = AnonymousBootstrapProfile.currentPlatform, accessTokenField: String = "access_token",
        tokenTypeField: String = "token_type", expiresInField: String = "expires_in", userField: String = "user"
    ) {
        self.endpoint = endpoint
        self.deviceIDField = deviceIDField
        self.platformField = platformField
        self.deviceSecretField = deviceSecretField
        self.deviceNameField = deviceNameField
        self.platform = platform
        self.accessTokenField = accessTokenField
        self.tokenTypeField = tokenTypeField
        self.expiresInField = expiresInField
        self.userField = userField
    }

    /// The platform value 1pass.dev accepts for this build: `macos` on macOS, `ios` everywhere
    /// else (the provider accepts only these two).
    public static var currentPlatform: String {
        #if os(macOS)
            "macos"
        #else
            "ios"
        #endif
    }

    /// The reference SDK's contract: `POST <issuer>/api/v1/auth/anonymous_bootstrap`.
    public static func onePass(issuer: URL) -> AnonymousBootstrapProfile {
        AnonymousBootstrapProfile(endpoint: Self.url(issuer, "/api/v1/auth/anonymous_bootstrap"))
    }

    /// The integration guide's manual shape: `POST <issuer>/api/v1/devices` with `device_uuid` and
    /// `platform`, no device name; the answer is read with the SDK's field names.
    public static func deviceRegistration(issuer: URL) -> AnonymousBootstrapProfile {
        AnonymousBootstrapProfile(
            endpoint: Self.url(issuer, "/api/v1/devices"), deviceIDField: "device_uuid", platformField: "platform",
            deviceNameField: nil)
    }

    private static func url(_ issuer: URL, _ path: String) -> URL {
        var base = issuer.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        // An absolute issuer URL followed by a fixed path is always a valid URL.
        return URL(string: base + path) ?? issuer.appendingPathComponent(String(path.dropFirst()))
    }
}
