public import SessionKitCore

/// A Wi-Fi network's details (CXF `wifi`).
///
/// Every member is optional, as in the format; secret members are `Secret`s.
public struct CXFWiFiCredential: Sendable, Hashable {
    /// The network's name.
    public var ssid: CXFField<String>?
    /// The security type, such as `wpa2-personal`.
    public var networkSecurityType: CXFField<String>?
    /// The passphrase.
    public var passphrase: CXFField<Secret>?
    /// Whether the network is hidden (`true` or `false`).
    public var hidden: CXFField<String>?

    /// Creates a credential.
    public init(
        ssid: CXFField<String>? = nil, networkSecurityType: CXFField<String>? = nil, passphrase: CXFField<Secret>? = nil,
        hidden: CXFField<String>? = nil
    ) {
        self.ssid = ssid
        self.networkSecurityType = networkSecurityType
        self.passphrase = passphrase
        self.hidden = hidden
    }
}
