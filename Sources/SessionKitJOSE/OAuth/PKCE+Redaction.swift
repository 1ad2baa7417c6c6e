extension PKCE: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Shows the challenge (it is sent in the clear anyway) but never the verifier.
    public var description: String { "PKCE(S256, challenge: \(challenge), verifier: <redacted>)" }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// Hides the verifier from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: ["challenge": challenge], displayStyle: .struct) }
}
