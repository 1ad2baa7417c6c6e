import Foundation
import SessionKit

extension SimulatedProviderState {
    /// `GET /oauth/userinfo` (OpenID Connect Core §5.3): the claims about the access token's
    /// subject, `sub` first. A test can make it answer for another `sub` (§5.3.2's check).
    func userInfoAnswer(_ request: HTTPRequest, now: Date) -> Answer {
        guard let token = Self.bearerToken(of: request), isAccessTokenActive(token, now: now), let record = accessTokens[token],
            let subject = grants[record.grantID]?.subject
        else { return Self.bearerError() }
        let members: [(String, SimulatedProviderJSON)] =
            [("sub", .string(userInfoSubjectOverride ?? subject))] + personClaims(of: subject)
        return Answer(Self.json(200, .object(members)))
    }
}
