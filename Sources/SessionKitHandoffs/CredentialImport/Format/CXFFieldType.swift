/// The `fieldType` of an editable field: how its text value is to be read.
///
/// Open-ended: a type from a later version of the format keeps its name.
public struct CXFFieldType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The wire name, such as `concealed-string`.
    public var rawValue: String

    /// Wraps a wire name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Unconcealed text.
    public static let string = CXFFieldType(rawValue: "string")
    /// Secret text, shown only when the person asks.
    public static let concealedString = CXFFieldType(rawValue: "concealed-string")
    /// An email address (RFC 5322).
    public static let email = CXFFieldType(rawValue: "email")
    /// A number written as text.
    public static let number = CXFFieldType(rawValue: "number")
    /// `true` or `false`.
    public static let boolean = CXFFieldType(rawValue: "boolean")
    /// A calendar date, `YYYY-MM-DD` (RFC 3339).
    public static let date = CXFFieldType(rawValue: "date")
    /// A year and month, `YYYY-MM`.
    public static let yearMonth = CXFFieldType(rawValue: "year-month")
    /// A Wi-Fi security type (`unsecured`, `wep`, `wpa-personal`, `wpa2-personal`, `wpa3-personal`).
    public static let wifiNetworkSecurityType = CXFFieldType(rawValue: "wifi-network-security-type")
    /// A country subdivision code (ISO 3166-2).
    public static let subdivisionCode = CXFFieldType(rawValue: "subdivision-code")
    /// A country code (ISO 3166-1 alpha-2).
    public static let countryCode = CXFFieldType(rawValue: "country-code")

    /// The wire name.
    public var description: String { rawValue }
}
