public import SessionKitCore

/// Accepts the credential-exchange activity and takes its import token out.
///
/// The system names both the activity type and the `userInfo` key
/// (`ASCredentialExchangeActivity` and `ASCredentialImportToken`); the Apple adapter provides an
/// intake with those, the test kit one with its own.
public struct CredentialImportIntake: Sendable, Hashable {
    /// The activity type of a credential-exchange launch.
    public var activityType: String
    /// The `userInfo` key of the import token.
    public var tokenKey: String

    /// Creates an intake for activities of `activityType` carrying the token under `tokenKey`.
    public init(activityType: String, tokenKey: String) {
        self.activityType = activityType
        self.tokenKey = tokenKey
    }

    /// The import token `activity` carries: exactly one well-formed UUID under ``tokenKey``, as a
    /// `UUID` object or its canonical text form. Other keys are left alone.
    public func token(from activity: CredentialImportActivity) throws(CredentialImportIntakeError) -> CredentialImportToken {
        guard activity.activityType == activityType else { throw .wrongActivityType }
        switch activity.userInfo[tokenKey] {
        case nil: throw .missingToken
        case .uuid(let uuid)?: return CredentialImportToken(uuid)
        case .string(let text)?:
            guard let token = CredentialImportToken(uuidString: text) else { throw .malformedToken }
            return token
        case .other?: throw .malformedToken
        }
    }
}
