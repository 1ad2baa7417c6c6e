import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The behaviours every provider must show through the public `Session` API over real HTTP.
/// Each suite runs them against its provider; provider-specific expectations branch on the kind.
enum Scenarios {
    static func signInVerifiesAndStores(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "signin")
        defer { harness.cleanUp() }
        let session = harness.makeSession()

        let identity = try await session.signIn()

        #expect(identity.issuer == environment.issuer)
        #expect(identity.audience == [environment.clientID])
        switch environment.kind {
        case .djangoOAuthToolkit: #expect(Int(identity.subject) != nil, "DOT's sub is the numeric user id")
        case .oidcProviderMock: #expect(identity.subject == harness.user)
        case .idpyoidc: #expect(identity.subject.count == 64, "idpyoidc's public sub is a SHA-256 in hex")
        }
        #expect(session.stage == .active)
        let stored = try #require(try await harness.storedSession())
        #expect(stored.subject == identity.subject)
        #expect(stored.issuer == environment.issuer)
        #expect(stored.pendingRefreshToken == nil)
        let token = try await session.validAccessToken()
        #expect(try await harness.userInfoStatus(token.secret) == 200)
        #expect(harness.transport.refreshRequests.isEmpty)
        #expect(harness.clock.sleeperCount == 0, "no timer outlives the handoff")
    }

    static func refreshRotatesAsTheProviderDoes(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "refresh")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let before = try #require(try await harness.storedSession())
        let oldToken = try await session.validAccessToken()

        let newToken = try await session.refresh()

        let after = try #require(try await harness.storedSession())
        #expect(newToken.secret != oldToken.secret)
        #expect(after.rotation == before.rotation + 1)
        #expect(after.pendingRefreshToken == nil)
        #expect(after.accessToken == newToken.secret)
        #expect(try await harness.userInfoStatus(newToken.secret) == 200)
        #expect(harness.transport.refreshRequests.count == 1)

        switch environment.kind {
        case .djangoOAuthToolkit:
            #expect(after.refreshToken != before.refreshToken, "DOT rotates refresh tokens")
            // Reuse protection: the rotated-out token is refused and revokes the whole chain...
            #expect(await refreshOutcome(before.refreshToken, harness: harness) == "invalid_grant")
            // ...so the session's own refresh is refused next, and the session ends.
            await #expect(throws: SessionError.refreshTokenRejected) { try await session.refresh() }
            #expect(session.stage == .signedOut)
            #expect(try await harness.storedSession() == nil)
        case .oidcProviderMock:
            #expect(after.refreshToken == before.refreshToken, "the mock keeps the refresh token")
            // The mock drops the old access token; it answers 400 access_denied rather than 401.
            let status = try await harness.userInfoStatus(oldToken.secret)
            #expect(status == 400 || status == 401)
        case .idpyoidc:
            #expect(after.refreshToken != before.refreshToken, "idpyoidc retires the refresh token it was given")
            #expect(await refreshOutcome(before.refreshToken, harness: harness) == "invalid_grant")
        }
    }

    static func concurrentCallersAtExpiryShareOneRefresh(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "fifty")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let first = try await session.validAccessToken()
        // Within the refresh lead time (60 s) of expiry: every caller now needs a refresh.
        harness.wallClock.advance(to: first.expiresAt.addingTimeInterval(-30))

        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for _ in 0..<50 {
                group.addTask { try await session.validAccessToken() }
            }
            return try await group.reduce(into: [AccessToken]()) { $0.append($1) }
        }

        #expect(tokens.count == 50)
        #expect(Set(tokens.map(\.secret)).count == 1, "every caller got the one refreshed token")
        #expect(tokens.first?.secret != first.secret)
        // With DOT's reuse protection a second refresh with the same token would have revoked the
        // chain and failed callers; exactly one refresh request went out.
        #expect(harness.transport.refreshRequests.count == 1)
        #expect(session.stage == .active)
        let token = try #require(tokens.first)
        #expect(try await harness.userInfoStatus(token.secret) == 200)
    }

    static func restoreInANewSessionUsesTheStoredRefreshToken(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "restore")
        defer { harness.cleanUp() }
        let identity = try await harness.makeSession().signIn()
        let stored = try #require(try await harness.storedSession())

        let relaunched = harness.makeSession()
        #expect(relaunched.stage == .signedOut)
        let stage = try await relaunched.restore()

        // Offline-first: the stored, verified session signs in without a request.
        #expect(stage == .active)
        #expect(relaunched.identity?.subject == identity.subject)
        #expect(harness.transport.refreshRequests.isEmpty, "restore with a token that is not due sends nothing")
        let token = try await relaunched.validAccessToken()
        #expect(try await harness.userInfoStatus(token.secret) == 200)
        // The stored refresh token still works: a forced refresh rotates it at the provider.
        _ = try await relaunched.refresh()
        let restored = try #require(try await harness.storedSession())
        #expect(restored.rotation == stored.rotation + 1)
        if environment.kind == .djangoOAuthToolkit {
            #expect(restored.refreshToken != stored.refreshToken)
        }
    }

    /// A refresh answered without an id_token (stripped on the way, as OIDC Core §12.2 allows a
    /// provider to do) keeps the verified identity and takes the rotated tokens, durably.
    static func refreshWithoutAnIDTokenKeepsTheSession(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "noidtoken")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        let identity = try await session.signIn()
        let stored = try #require(try await harness.storedSession())
        harness.transport.stripIDTokensFromRefreshes()
        let token = try await session.refresh()
        #expect(session.stage == .active)
        #expect(session.identity == identity)
        let refreshed = try #require(try await harness.storedSession())
        #expect(refreshed.accessToken == token.secret)
        #expect(refreshed.rotation == stored.rotation + 1)
        #expect(refreshed.idToken == stored.idToken, "the verified id_token is kept")
        #expect(try await harness.userInfoStatus(token.secret) == 200)
        // And again: the rotated refresh token it stored is the live one.
        _ = try await session.refresh()
        #expect(session.stage == .active)
    }

    /// A refresh token revoked at the provider ends the session once: one refused refresh, signed
    /// out with a reason, the dead token never presented again.
    static func aRevokedRefreshTokenEndsTheSessionOnce(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "revoked")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let stored = try #require(try await harness.storedSession())
        _ = try await harness.outOfBandClient().revoke(try #require(stored.refreshToken))
        await #expect(throws: SessionError.refreshTokenRejected) { try await session.refresh() }
        #expect(session.stage == .signedOut)
        #expect(try await harness.storedSession() == nil)
        await #expect(throws: SessionError.notSignedIn) { try await session.validAccessToken() }
        await #expect(throws: SessionError.notSignedIn) { try await session.refresh() }
        #expect(harness.transport.refreshRequests.count == 1)
    }

    static func signOutGoesToTheServerFirst(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "signout")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        let recorder = TransitionRecorder()
        session.addObserver { recorder.record($0) }
        let identity = try await session.signIn()
        let stored = try #require(try await harness.storedSession())
        let accessToken = try await session.validAccessToken()

        try await session.signOut()

        #expect(session.stage == .signedOut)
        let record = try await harness.store.load()
        #expect(record.session == nil)
        #expect(record.pendingOperation == nil)
        await #expect(throws: SessionError.notSignedIn) { try await session.validAccessToken() }
        let refreshAtServer = await refreshOutcome(stored.refreshToken, harness: harness)

        switch environment.kind {
        case .djangoOAuthToolkit:
            #expect(harness.transport.log.contains { $0.url == environment.revocationEndpoint && $0.method == "POST" })
            #expect(recorder.reasons.contains(.revocationConfirmed))
            #expect(refreshAtServer == "invalid_grant", "the revoked refresh token fails at the server")
            #expect(try await harness.userInfoStatus(accessToken.secret) == 401, "revoking the refresh token revoked its access token")
        case .oidcProviderMock:
            // No RFC 7009 endpoint: a local wipe, and the app is told the provider was not.
            #expect(recorder.reasons.contains { $0.code == .signedOutLocallyOnly })
            #expect(refreshAtServer == "ok", "the provider was not told, so the token still works there")
            let users = try #require(environment.usersURL)
            _ = try await harness.post(users.appendingPathComponent(identity.subject).appendingPathComponent("revoke-tokens"))
            #expect(await refreshOutcome(stored.refreshToken, harness: harness) == "invalid_grant")
        case .idpyoidc:
            #expect(recorder.reasons.contains(.revocationConfirmed))
            #expect(refreshAtServer == "invalid_grant", "the revoked refresh token fails at the server")
        }
    }

    static func signingKeyRotationIsFollowed(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "rotation")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let oldKeyID = try #require(keyID(of: try await harness.storedSession()?.idToken))
        let rotateURL = try #require(environment.rotateKeyURL)

        let rotation = try await harness.post(rotateURL)
        let newKeyID = try #require(rotation["active_kid"] as? String)
        #expect(newKeyID != oldKeyID)
        // A forced key-set refetch is rate-limited to one a minute (on the wall clock).
        harness.wallClock.advance(by: 61)
        try await session.refresh()

        #expect(keyID(of: try await harness.storedSession()?.idToken) == newKeyID)
        #expect(
            harness.transport.log.filter { $0.url == harness.configuration.provider.jwksURI }.count == 2,
            "the cached set lacked the new kid, so it was fetched once more")
        #expect(session.stage == .active)
    }

    /// A refresh whose provider refuses connections: tried three times with backoff on the test
    /// clock (the refresh retry policy), then the callers get the transport error and the session
    /// keeps its tokens for the next call.
    static func providerDownFollowsTheRetryPolicy(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "down")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let first = try await session.validAccessToken()
        // Past its expiry: inside the lead time the current token would be handed out meanwhile.
        harness.wallClock.advance(to: first.expiresAt.addingTimeInterval(1))
        harness.transport.reroute(toPort: try SilentListener.refusingPort(), through: harness.providerTransport)

        let pending = Task { () async -> Result<AccessToken, SessionError> in
            do throws(SessionError) { return .success(try await session.validAccessToken()) } catch { return .failure(error) }
        }
        for _ in 0..<2 {
            await harness.clock.waitForSleepers(count: 1)
            _ = harness.clock.advanceToNextDeadline()
        }
        let result = await pending.value

        guard case .failure(let error) = result, case .transport(.connectionFailed)? = error.providerError else {
            Issue.record("expected a connection failure, got \(result)")
            return
        }
        #expect(harness.transport.refreshRequests.filter(\.rerouted).count == 3)
        #expect(session.stage == .active)
        #expect(try await harness.storedSession() != nil)

        harness.transport.restore()
        let token = try await session.validAccessToken()
        #expect(token.secret != first.secret)
        #expect(harness.transport.refreshRequests.filter { !$0.rerouted }.count == 1)
    }

    /// A refresh whose provider accepts the connection and never answers: each attempt ends at
    /// the transport's deadline on the test clock, then the same retry policy applies.
    static func providerHangingHitsTheDeadline(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "hang")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        try await session.signIn()
        let first = try await session.validAccessToken()
        // Past its expiry: inside the lead time the current token would be handed out meanwhile.
        harness.wallClock.advance(to: first.expiresAt.addingTimeInterval(1))
        let listener = try SilentListener()
        harness.transport.reroute(
            toPort: listener.port, through: URLSessionTransport(clock: harness.clock, deadline: .seconds(10)))

        let pending = Task { () async -> Result<AccessToken, SessionError> in
            do throws(SessionError) { return .success(try await session.validAccessToken()) } catch { return .failure(error) }
        }
        // Three deadlines with two backoffs between them.
        for _ in 0..<5 {
            await harness.clock.waitForSleepers(count: 1)
            _ = harness.clock.advanceToNextDeadline()
        }
        let result = await pending.value

        guard case .failure(.provider(.transport(.timedOut))) = result else {
            Issue.record("expected a time-out, got \(result)")
            return
        }
        #expect(harness.transport.refreshRequests.filter(\.rerouted).count == 3)
        #expect(session.stage == .active)

        harness.transport.restore()
        let token = try await session.validAccessToken()
        #expect(token.secret != first.secret)
    }

    /// `ok`, the OAuth error code, or a short failure phrase for a refresh made behind the session's back.
    private static func refreshOutcome(_ refreshToken: Secret?, harness: IntegrationHarness) async -> String {
        guard let refreshToken else { return "no refresh token" }
        do {
            _ = try await harness.outOfBandClient().refresh(refreshToken)
            return "ok"
        } catch {
            return error.oauthError ?? error.summary
        }
    }
}
