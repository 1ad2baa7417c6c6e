/// The credential data an importer received, as Credential Exchange Format JSON, not yet decoded.
///
/// It holds passwords and keys: every way Swift can print it shows only its size.
public struct CredentialExchangePayload: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The UTF-8 JSON bytes.
    public let bytes: [UInt8]

    /// Wraps received JSON bytes.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The size only.
    public var description: String { "CredentialExchangePayload(\(bytes.count) bytes)" }
    /// The size only.
    public var debugDescription: String { description }
    /// Hides the bytes from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["count": bytes.count], displayStyle: .struct) }
}
