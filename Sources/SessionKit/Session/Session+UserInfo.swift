import Foundation
public import SessionKitJOSE

extension Session {
    /// Fetches the UserInfo claims (OpenID Connect Core §5.3) about the signed-in person with a
    /// valid access token (refreshed first when due), accepted only when their `sub` equals the
    /// verified identity's (§5.3.2). Returns `nil` when the provider has no UserInfo endpoint.
    ///
    /// The answer is returned, never merged into ``identity``: that stays what the verified
    /// id_token says. A signed answer (`application/jwt`, §5.3.2) is verified with the provider's
    /// signing keys like an id_token (signature, `iss`, `aud`; one key refetch for an unknown
    /// `kid`) before it is read; aggregated claims the issuer signed are verified too, others are
    /// typed unverified, and distributed claims are listed, never fetched (§5.6.2).
    ///
    /// - Throws: ``SessionError/userInfoRejected(_:)`` for another person's `sub` or a malformed
    ///   answer, ``SessionError/provider(_:)`` when the endpoint fails (401: the access token was
    ///   not accepted), and what ``validAccessToken()`` throws.
    public func fetchUserInfo() async throws(SessionError) -> UserInfo? {
        guard configuration.provider.userInfoEndpoint != nil else { return nil }
        let token = try await validAccessToken()
        guard let subject = identity?.subject else { throw .notSignedIn }
        let keys: (keys: JWKS, fromCache: Bool)
        do {
            keys = try await verifier.keys.keys()
        } catch {
            throw .provider(error)
        }
        do throws(UserInfoFetchError) {
            return try await userInfo(token: token.secret, subject: subject, keys: keys.keys)
        } catch .rejected(.unknownKey) where keys.fromCache {
            // A rotated key: fetch the set once more (rate-limited) and ask again.
            do throws(UserInfoFetchError) {
                guard let fresh = try await refetchedKeys() else { throw .rejected(.unknownKey) }
                return try await userInfo(token: token.secret, subject: subject, keys: fresh)
            } catch {
                throw SessionError(error)
            }
        } catch {
            throw SessionError(error)
        }
    }

    /// One UserInfo request, sent once more when it was refused for a nonce the server then gave.
    private func userInfo(token: Secret, subject: String, keys: JWKS) async throws(UserInfoFetchError) -> UserInfo? {
        let client = self.client
        return try await DPoPNonceStep.sendingOnceMoreForNonce { () async throws(UserInfoFetchError) in
            try await client.fetchUserInfo(accessToken: token, expectedSubject: subject, keys: keys)
        }
    }

    private func refetchedKeys() async throws(UserInfoFetchError) -> JWKS? {
        do {
            return try await verifier.keys.refetch()
        } catch {
            throw .provider(error)
        }
    }
}
