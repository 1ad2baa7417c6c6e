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
    public func fetchUserInfo(accessToken: Secret, expectedSubject: String) async throws(UserInfoFetchError) -> UserInfo? {
        guard let body = try await fetchUserInfoBody(accessToken: accessToken) else { return nil }
        do throws(UserInfoError) {
            return try UserInfo.decode(body, expectedSubject: expectedSubject)
        } catch {
            throw .rejected(error)
        }
    }

    /// The UserInfo answer for a sign-in that brought no id_token: the answer names the person,
    /// and every later id_token or answer is held to that `sub`. Returns `nil` without an endpoint.
    func fetchUserInfoNamingSubject(accessToken: Secret) async throws(UserInfoFetchError) -> UserInfo? {
        guard let body = try await fetchUserInfoBody(accessToken: accessToken) else { return nil }
        do throws(UserInfoError) {
            return try UserInfo.decodeIdentifying(body)
        } catch {
            throw .rejected(error)
        }
    }

    private func fetchUserInfoBody(accessToken: Secret) async throws(UserInfoFetchError) -> Data? {
        guard let endpoint = configuration.userInfoEndpoint else { return nil }
        let response: HTTPResponse
        do {
            response = try await send(
                HTTPRequest(
                    method: "GET", url: endpoint,
                    headers: [("Authorization", "Bearer \(accessToken.value)"), ("Accept", "application/json")]), to: .userInfo)
        } catch {
            throw .provider(error)
        }
        guard response.status == 200 else { throw .provider(ProviderError.fromResponse(response, now: now())) }
        return response.body
    }
}
