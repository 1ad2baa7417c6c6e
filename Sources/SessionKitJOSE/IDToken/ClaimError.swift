/// Why a claim could not be read as the type an app asked for.
///
/// It names the claim, never its value: claims can be personal data.
@nonexhaustive
public enum ClaimError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The claim is present but its JSON value does not decode as the requested type.
    case typeMismatch(claim: String)

    /// The stable code and the claim name, e.g. `claim_type_mismatch(tenant)`.
    public var description: String {
        switch self {
        case .typeMismatch(let claim): "claim_type_mismatch(\(claim))"
        }
    }
}
