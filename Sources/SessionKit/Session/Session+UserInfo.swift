import Foundation
public import SessionKitJOSE

extension Session {
    /// Fetches the UserInfo claims (OpenID Connect Core §5.3) about the signed-in person with a
    /// valid access token (refreshed first when due), accepted only when their `sub` equals the
    /// verified identity's (§5.3.2). Returns `nil` when the provider has no UserInfo endpoint.
    ///
    /// The answer is returned, never merged into ``identity``: that stays what the verified
    /// id_token says.
    ///
    /// - Throws: ``SessionError/userInfoRejected(_:)`` for another person's `sub` or a malformed
    ///   answer, ``SessionError/provider(_:)`` when the endpoint fails (401: the access token was
    ///   not accepted), and what ``validAccessToken()`` throws.
    public func fetchUserInfo() async throws(SessionError) -> UserInfo? {
        guard configuration.provider.userInfoEndpoint != nil else { return nil }
        let token = try await validAccessToken()
        guard let subject = identity?.subject else { throw .notSignedIn }
        do throws(UserInfoFetchError) {
            return try await client.fetchUserInfo(accessToken: token.secret, expectedSubject: subject)
        } catch {
            throw SessionError(error)
        }
    }
}
