/// A departure from the format the decoder accepted because its meaning is unambiguous, and
/// where: exporters in the field write these, and refusing them would lose the person's data.
///
/// Paths name members and positions only, never values, so a leniency is safe to log.
public struct CXFLeniency: Sendable, Hashable, CustomStringConvertible {
    /// What was accepted.
    @nonexhaustive
    public enum Kind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// A Base32 secret in lower case or with spaces; read upper-cased, spaces removed.
        case base32CaseOrSpaces
        /// Base64url written with `=` padding; read without it.
        case paddedBase64URL
        /// Base64url whose last character carries non-zero unused bits; they are ignored.
        case base64URLTrailingBits
        /// Standard base64 (`+`, `/`) where base64url was due; read as the same bytes.
        case standardBase64
        /// A concealed member (a password, a key) typed `string` instead of `concealed-string`;
        /// kept as a secret.
        case stringForConcealedField
        /// A timestamp with a fraction of a second; the fraction is kept.
        case fractionalTimestamp
        /// An Android certificate's algorithm under Apple's property name `hashAlgorithm`
        /// instead of the format's `hashAlg`.
        case hashAlgorithmMemberName
        /// A minor version of the format newer than any the app declares for that major
        /// version; members it added are ignored.
        case newerMinorVersion

        /// The case's name.
        public var description: String { rawValue }
    }

    /// What was accepted.
    public var kind: Kind
    /// The member's path, such as `accounts[0].items[2].credentials[0].secret`.
    public var path: String

    /// Creates a leniency record.
    public init(kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// For example `base32CaseOrSpaces at accounts[0].items[2].credentials[0].secret`.
    public var description: String { "\(kind) at \(path)" }
}
