/// A string that must never be printed: a token, an authorization code, a device secret.
///
/// `description`, `debugDescription` and reflection all show a redacted placeholder, so a
/// `Secret` can travel through logs, errors and string interpolation without leaking. Read the
/// value only where it is sent to its destination, through ``value``.
public struct Secret: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret text. Read it only to send it where it belongs.
    public let value: String

    /// Wraps a secret value.
    public init(_ value: String) {
        self.value = value
    }

    /// Decodes the value from a single string, as the credential stores write it.
    public init(from decoder: any Decoder) throws {
        self.value = try decoder.singleValueContainer().decode(String.self)
    }

    /// Encodes the value as a single string, for the credential stores only.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `Secret(<redacted>)`.
    public var debugDescription: String { "Secret(<redacted>)" }
    /// Hides the value from `dump` and debuggers' child listings.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
