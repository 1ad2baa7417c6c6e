import Foundation
import SessionKit

extension SimulatedProviderState {
    /// `GET /oauth/userinfo` (OpenID Connect Core §5.3): the claims about the access token's
    /// subject, `sub` first. A test can make it answer for another `sub` (§5.3.2's check).
    func userInfoAnswer(_ request: HTTPRequest, now: Date) -> Answer {
        guard let token = Self.bearerToken(of: request), isAccessTokenActive(token, now: now), let record = accessTokens[token],
            let subject = grants[record.grantID]?.subject
        else { return Self.bearerError() }
        var members: [(String, SimulatedProviderJSON)] =
            [("sub", .string(userInfoSubjectOverride ?? subject))] + personClaims(of: subject)
        guard let signing = userInfoSigning else { return Answer(Self.json(200, .object(members))) }
        members.append(("iss", .string(signing == .wrongIssuer ? "https://wrong-issuer.example" : configuration.issuerString)))
        members.append(("aud", .string(signing == .wrongAudience ? "another-client" : configuration.clientID)))
        guard var token = try? currentKey.sign(SimulatedProviderJSON.object(members).bytes, keyID: currentKey.keyID) else {
            return Self.error(500, "server_error")
        }
        if signing == .badSignature { token = Self.corruptingSignature(of: token) }
        return Answer(
            HTTPResponse(status: 200, headers: ["Content-Type": "application/jwt", "Cache-Control": "no-store"], body: Data(token.utf8)))
    }
}
