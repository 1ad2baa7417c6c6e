public import Foundation

/// What a presenter shows for a device sign-in (RFC 8628 §3.3): the code the person types, where
/// to type it, and the same address with the code in it (for a QR code or a link).
///
/// None of it is secret: the device code the session polls with never reaches the presenter.
public struct DeviceCodePrompt: Sendable, Hashable {
    /// `user_code`: show it even when ``verificationURIComplete`` is shown, so the person can
    /// compare it with what the other device displays.
    public var userCode: String
    /// `verification_uri`: where the person goes on any device with a browser.
    public var verificationURI: URL
    /// `verification_uri_complete`, when the provider gave one.
    public var verificationURIComplete: URL?
    /// Seconds until the code expires, from when the provider issued it.
    public var expiresIn: Double

    /// A prompt from its values.
    public init(userCode: String, verificationURI: URL, verificationURIComplete: URL? = nil, expiresIn: Double) {
        self.userCode = userCode
        self.verificationURI = verificationURI
        self.verificationURIComplete = verificationURIComplete
        self.expiresIn = expiresIn
    }

    /// The prompt for a device authorization response.
    init(_ authorization: DeviceAuthorization) {
        self.init(
            userCode: authorization.userCode, verificationURI: authorization.verificationURI,
            verificationURIComplete: authorization.verificationURIComplete, expiresIn: authorization.expiresIn)
    }
}
