public import SessionKitCore

/// A reference to one granted credential, as 1Password returns it in an ``AccessGrant``.
///
/// The app resolves it to the credential through 1Password's own channels; to SessionKit it is an
/// opaque secret. Every way Swift can print it shows a redacted placeholder.
public struct CredentialReference: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The reference string.
    public let secret: Secret

    /// Wraps a reference string.
    public init(_ value: String) {
        self.secret = Secret(value)
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `CredentialReference(<redacted>)`.
    public var debugDescription: String { "CredentialReference(<redacted>)" }
    /// Hides the value from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
