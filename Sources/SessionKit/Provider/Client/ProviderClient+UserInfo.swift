import Foundation
public import SessionKitCore
public import SessionKitJOSE

extension ProviderClient {
    /// Fetches the claims the UserInfo endpoint holds about the access token's owner (OpenID
    /// Connect Core §5.3.1: `GET`, Bearer access token) and accepts them only when their `sub`
    /// equals `expectedSubject`, the verified id_token's `sub` (§5.3.2). Returns `nil` when the
    /// provider has no UserInfo endpoint.
    ///
    /// A mismatch is an error, never a partial result, so another person's claims cannot be mixed
    /// into the signed-in identity.
    /// A signed answer (`application/jwt`) is refused as `malformed` here, since no keys are at
    /// hand to verify it: ``fetchUserInfo(accessToken:expectedSubject:keys:)`` takes them.
    public func fetchUserInfo(accessToken: Secret, expectedSubject: String) async throws(UserInfoFetchError) -> UserInfo? {
        guard let answer = try await fetchUserInfoAnswer(accessToken: accessToken) else { return nil }
        do throws(UserInfoError) {
            return try UserInfo.decode(answer.body, expectedSubject: expectedSubject)
        } catch {
            throw .rejected(error)
        }
    }

    /// Fetches the UserInfo claims like ``fetchUserInfo(accessToken:expectedSubject:)``, and
    /// verifies a signed answer (`application/jwt`, OpenID Connect Core §5.3.2) with the
    /// provider's `keys` before it is read: signature under the configured algorithms, `iss` the
    /// issuer, `aud` containing the client id. Aggregated claims the issuer signed are verified
    /// with the same keys (§5.6.2). Returns `nil` when the provider has no UserInfo endpoint.
    public func fetchUserInfo(accessToken: Secret, expectedSubject: String, keys: JWKS) async throws(UserInfoFetchError) -> UserInfo? {
        guard let answer = try await fetchUserInfoAnswer(accessToken: accessToken) else { return nil }
        do throws(UserInfoError) {
            return try UserInfo.decode(
                answer.body, contentType: answer.contentType, keys: keys, expecting: userInfoExpectations,
                expectedSubject: expectedSubject)
        } catch {
            throw .rejected(error)
        }
    }

    /// What a signed UserInfo answer and the issuer's aggregated claims are held to.
    var userInfoExpectations: UserInfoExpectations {
        UserInfoExpectations(
            issuer: configuration.issuer, clientID: configuration.clientID, algorithms: configuration.idTokenSigningAlgorithms,
            allowMissingKeyID: configuration.allowsMissingKeyID)
    }

    /// The UserInfo answer for a sign-in that brought no id_token: the answer names the person,
    /// and every later id_token or answer is held to that `sub`. Returns `nil` without an endpoint.
    func fetchUserInfoNamingSubject(accessToken: Secret) async throws(UserInfoFetchError) -> UserInfo? {
        guard let answer = try await fetchUserInfoAnswer(accessToken: accessToken) else { return nil }
        do throws(UserInfoError) {
            return try UserInfo.decodeIdentifying(answer.body)
        } catch {
            throw .rejected(error)
        }
    }

    private func fetchUserInfoAnswer(accessToken: Secret) async throws(UserInfoFetchError) -> (body: Data, contentType: String?)? {
        guard let endpoint = configuration.userInfoEndpoint else { return nil }
        let response: HTTPResponse
        do {
            response = try await send(
                HTTPRequest(
                    method: "GET", url: endpoint,
                    headers: [("Authorization", "Bearer \(accessToken.value)"), ("Accept", "application/json, application/jwt")]),
                to: .userInfo)
        } catch {
            throw .provider(error)
        }
        guard response.status == 200 else { throw .provider(ProviderError.fromResponse(response, now: now())) }
        return (response.body, response.header("Content-Type"))
    }
}
