public import Foundation

/// The result of a step-up sign-in kept behind a ``BiometricGate``: the access token it brought,
/// for one high-assurance action, and what the provider said about the authentication.
public struct HighAssuranceToken: Sendable, Hashable, CustomStringConvertible {
    /// The step-up's access token; send it only with the high-assurance request.
    public var accessToken: AccessToken
    /// The signed-in subject (`sub`) the token belongs to.
    public var subject: String
    /// `auth_time` of the step-up's verified id_token.
    public var authenticationTime: Date?
    /// `acr` of the step-up's verified id_token.
    public var authenticationContextClass: String?

    /// Creates a token value.
    public init(accessToken: AccessToken, subject: String, authenticationTime: Date? = nil, authenticationContextClass: String? = nil) {
        self.accessToken = accessToken
        self.subject = subject
        self.authenticationTime = authenticationTime
        self.authenticationContextClass = authenticationContextClass
    }

    /// Names the subject and the expiry, never the token.
    public var description: String {
        "HighAssuranceToken(\(subject), expires \(accessToken.expiresAt)\(authenticationContextClass.map { ", acr \($0)" } ?? ""))"
    }
}
