/// A version of the FIDO Alliance Credential Exchange Format: `major.minor`.
///
/// An app declares the versions it reads (the `SupportedCredentialExchangeVersions` Info.plist
/// key lists the same strings). Data in a major version the app does not declare is refused,
/// never guessed at; a minor version is purely additive, so data in a newer minor version of a
/// declared major version is read with the additions ignored (and noted as a leniency).
public struct CXFVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The major version: a change means an incompatible format.
    public var major: Int
    /// The minor version: additions compatible within the same major version.
    public var minor: Int

    /// Credential Exchange Format 1.0.
    public static let v1 = CXFVersion(major: 1, minor: 0)

    /// Creates a version.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// Parses `"major.minor"` (decimal digits only, as in the Info.plist); `nil` otherwise.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy(\.isASCIIDigit) }),
            let major = Int(parts[0]), let minor = Int(parts[1])
        else { return nil }
        self.init(major: major, minor: minor)
    }

    /// Orders by major, then minor version.
    public static func < (lhs: CXFVersion, rhs: CXFVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// `"major.minor"`, as the Info.plist writes it.
    public var description: String { "\(major).\(minor)" }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
