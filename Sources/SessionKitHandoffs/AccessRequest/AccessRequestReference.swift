public import SessionKitCore

/// An access request reference: the secret that names one access request and carries its text.
///
/// The app gets it from wherever the request was created and hands it to 1Password unchanged:
/// SessionKit never decodes, edits or rebuilds it. Every way Swift can print it shows a redacted
/// placeholder.
public struct AccessRequestReference: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The reference, exactly as the app received it.
    public let secret: Secret

    /// Wraps a reference as received.
    public init(_ value: String) {
        self.secret = Secret(value)
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `AccessRequestReference(<redacted>)`.
    public var debugDescription: String { "AccessRequestReference(<redacted>)" }
    /// Hides the value from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
