public import Foundation
public import SessionKitCore

/// A device authorization response (RFC 8628 §3.2): the codes and the address the person needs
/// to approve the sign-in on another device, decoded strictly.
///
/// ``deviceCode`` is the secret the device polls with; the user code and the verification
/// addresses are meant to be shown, so they are plain values.
public struct DeviceAuthorization: Sendable, Hashable {
    /// `device_code`: presented to the token endpoint while polling; never shown.
    public var deviceCode: Secret
    /// `user_code`: what the person types at ``verificationURI``.
    public var userCode: String
    /// `verification_uri`: where the person goes, on any device with a browser.
    public var verificationURI: URL
    /// `verification_uri_complete`: the same address with the user code in it (for a QR code or a
    /// link); the user code should still be shown beside it.
    public var verificationURIComplete: URL?
    /// `expires_in`: seconds until the codes expire, from when the response arrived.
    public var expiresIn: Double
    /// `interval`: the least seconds between two polls; 5 when the provider gave none.
    public var interval: Double

    /// The interval RFC 8628 §3.2 prescribes when the response names none.
    public static let defaultInterval: Double = 5

    /// A response from its values, for tests and simulated providers.
    public init(
        deviceCode: Secret, userCode: String, verificationURI: URL, verificationURIComplete: URL? = nil, expiresIn: Double,
        interval: Double = DeviceAuthorization.defaultInterval
    ) {
        self.deviceCode = deviceCode
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
        self.interval = interval
    }

    private struct Wire: Decodable {
        var deviceCode: String
        var userCode: String
        var verificationURI: String
        var verificationURIComplete: String?
        var expiresIn: Double
        var interval: Double?

        enum CodingKeys: String, CodingKey {
            case deviceCode = "device_code"
            case userCode = "user_code"
            case verificationURI = "verification_uri"
            case verificationURIComplete = "verification_uri_complete"
            case expiresIn = "expires_in"
            case interval
        }
    }

    /// Decodes a response body: every member must have the type §3.2 gives it, the codes must not
    /// be empty, the addresses must be absolute `http(s)` URLs, `expires_in` positive and
    /// `interval` not negative.
    public init(decoding body: Data) throws(ProviderError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: body)
        } catch {
            throw .invalidResponse("device authorization response does not decode")
        }
        guard !wire.deviceCode.isEmpty, !wire.userCode.isEmpty else { throw .invalidResponse("empty device or user code") }
        guard let verificationURI = Self.webURL(wire.verificationURI) else {
            throw .invalidResponse("verification_uri is not an http(s) URL")
        }
        var complete: URL?
        if let text = wire.verificationURIComplete {
            guard let url = Self.webURL(text) else { throw .invalidResponse("verification_uri_complete is not an http(s) URL") }
            complete = url
        }
        guard wire.expiresIn.isFinite, wire.expiresIn > 0 else { throw .invalidResponse("expires_in is not a positive number") }
        if let interval = wire.interval, !(interval.isFinite && interval >= 0) {
            throw .invalidResponse("interval is not a non-negative number")
        }
        self.init(
            deviceCode: Secret(wire.deviceCode), userCode: wire.userCode, verificationURI: verificationURI,
            verificationURIComplete: complete, expiresIn: wire.expiresIn, interval: wire.interval ?? Self.defaultInterval)
    }

    /// An absolute `http` or `https` URL with a host: the only kind a person is sent to.
    private static func webURL(_ text: String) -> URL? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { return nil }
        return components.url
    }
}
