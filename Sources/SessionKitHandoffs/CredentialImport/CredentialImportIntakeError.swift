/// Why a user activity did not yield an import token. No case carries the token.
@nonexhaustive
public enum CredentialImportIntakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The activity is not the credential-exchange activity.
    case wrongActivityType
    /// The activity's `userInfo` has no token.
    case missingToken
    /// The token is not a UUID (nor its canonical text form).
    case malformedToken

    /// What was wrong.
    public var description: String {
        switch self {
        case .wrongActivityType: "the activity is not a credential-exchange activity"
        case .missingToken: "the activity carries no import token"
        case .malformedToken: "the activity's import token is not a UUID"
        }
    }
}
