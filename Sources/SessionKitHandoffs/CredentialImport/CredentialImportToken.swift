import Foundation

/// The one-time token the system hands an app to import credentials another app exported.
///
/// It is a UUID, good for a single import; treat it as a secret: every way Swift can print it
/// shows a redacted placeholder.
public struct CredentialImportToken: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The token, to hand to the system's import call.
    public let uuid: UUID

    /// Wraps a token.
    public init(_ uuid: UUID) {
        self.uuid = uuid
    }

    /// Parses a token from its canonical text form (`8-4-4-4-12` hexadecimal digits); `nil` for
    /// anything else.
    public init?(uuidString text: String) {
        // Foundation's parser accepts the canonical layout only, but check the length first so
        // nothing else is ever handed to it.
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return nil }
        self.uuid = uuid
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `CredentialImportToken(<redacted>)`.
    public var debugDescription: String { "CredentialImportToken(<redacted>)" }
    /// Hides the value from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
