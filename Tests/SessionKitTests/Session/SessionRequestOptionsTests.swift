import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Request options through the session: configuration defaults overridden per sign-in, carried in
/// the handoff and checked on the returned id_token (`max_age` → `auth_time`, essential `acr`),
/// the `offline_access` policy, and sessions the provider issued no refresh token for.
@Suite("Session request options")
struct SessionRequestOptionsTests {
    /// Starts a sign-in with `options` whose presenter never answers; returns once the handoff waits.
    private func pendingSignIn(
        _ h: SimulatedSessionEnvironment, options: AuthorizationRequestOptions
    ) async -> Task<SessionCallResult<SessionIdentity>, Never> {
        h.presenter.enqueue(.neverAnswer)
        let session = h.session
        let task = Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn(options: options) } }
        await h.presenter.waitForSuspendedPresentations(count: 1)
        return task
    }

    /// `url` without the query item `name`: a provider that ignored the parameter.
    private func dropping(_ name: String, from url: URL) throws -> URL {
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        components.queryItems = components.queryItems?.filter { $0.name != name }
        return try #require(components.url)
    }

    @Test("per-sign-in options override the configuration's defaults, and the request carries both")
    func defaultsAndOverrides() async throws {
        let h = try SimulatedSessionEnvironment {
            $0.authorizationOptions = try! AuthorizationRequestOptions(
                loginHint: "alice@example.com", uiLocales: ["de"], additionalParameters: ["audience": "api"], offlineAccess: .request)
        }
        h.presenter.enqueue(.approve(subject: "alice"))
        try await h.session.signIn(options: try AuthorizationRequestOptions(prompt: [.login], uiLocales: ["fr"], maxAge: 900))
        let record = try #require(h.provider.authorizationRecords.last)
        #expect(record.loginHint == "alice@example.com")
        #expect(record.uiLocales == ["fr"])
        // offline_access goes out with prompt=consent (OIDC Core §11).
        #expect(record.prompt == ["login", "consent"])
        #expect(record.maxAge == 900)
        #expect(record.otherParameterNames == ["audience"])
        #expect(record.scopes.contains("offline_access"))

        // signIn() alone sends the defaults.
        try await h.session.signOut()
        h.presenter.enqueue(.approve(subject: "alice"))
        try await h.session.signIn()
        let plain = try #require(h.provider.authorizationRecords.last)
        #expect(plain.prompt == ["consent"])
        #expect(plain.uiLocales == ["de"])
        #expect(plain.maxAge == nil)
    }

    @Test("options that break a rule are refused before anything is sent")
    func invalidOptions() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        var options = AuthorizationRequestOptions.empty
        options.additionalParameters = ["state": "forged"]
        await #expect(throws: SessionError.invalidRequestOptions(.reservedParameter("state"))) {
            try await h.session.signIn(options: options)
        }
        let error = SessionError.invalidRequestOptions(.reservedParameter("state"))
        #expect(error.isMisuse)
        #expect(error.code == .invalidRequestOptions)
        #expect(h.presenter.presentedRequests.isEmpty)
        #expect(h.steps.isEmpty)
        #expect(h.session.stage == .signedOut)
    }

    @Test("a step-up with max_age makes the provider authenticate again; the fresh auth_time is on the identity")
    func stepUpWithMaxAge() async throws {
        let h = try SimulatedSessionEnvironment()
        try await h.signIn()
        let first = try #require(h.session.identity)
        #expect(first.claims.authenticationTime == nil, "no max_age, no auth_time from this provider")
        try await h.session.signOut()

        // Ten minutes later, without max_age the provider's browser session signs in silently...
        h.clock.advance(by: .seconds(600))
        try await h.signIn()
        #expect(h.provider.authorizationRecords.last?.authenticated == false)
        try await h.session.signOut()

        // ...with max_age 300 it must authenticate again, and the id_token proves when.
        h.presenter.enqueue(.approve(subject: "alice"))
        let stepUp = try await h.session.signIn(options: try AuthorizationRequestOptions(maxAge: 300))
        #expect(h.provider.authorizationRecords.last?.authenticated == true)
        #expect(stepUp.claims.authenticationTime == h.epoch.addingTimeInterval(600))
        #expect(h.store.record.session?.claims?.authenticationTime == h.epoch.addingTimeInterval(600))
    }

    @Test("max_age sent but no auth_time returned: missing_auth_time")
    func missingAuthTime() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signIn = await pendingSignIn(h, options: try AuthorizationRequestOptions(maxAge: 300))
        // A provider that ignores max_age answers without auth_time.
        let request = try #require(h.presenter.presentedRequests.last)
        let callback = try h.provider.authorize(try dropping("max_age", from: request.authorizationURL), subject: "alice")
        #expect(h.session.handle(callback))
        let error = await signIn.value.error
        #expect(error == .verificationFailed(.missingAuthTime))
        #expect(error?.identifier == "verification_failed.missing_auth_time")
        #expect(h.store.record.session == nil)
        #expect(h.steps.contains(.move(.verifying, .signedOut, .verificationFailed(.missingAuthTime))))
    }

    @Test("an auth_time older than max_age allows (beyond the skew): auth_time_too_old")
    func authTimeTooOld() async throws {
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(alwaysIncludesAuthTime: true))
        try await h.signIn()
        try await h.session.signOut()
        h.clock.advance(by: .seconds(600))
        let signIn = await pendingSignIn(h, options: try AuthorizationRequestOptions(maxAge: 300))
        // The provider ignores max_age and reuses the ten-minute-old browser session.
        let request = try #require(h.presenter.presentedRequests.last)
        let callback = try h.provider.authorize(try dropping("max_age", from: request.authorizationURL), subject: "alice")
        #expect(h.session.handle(callback))
        #expect(await signIn.value.error == .verificationFailed(.authTimeTooOld))
    }

    @Test("essential acr the provider cannot satisfy: acr_mismatch; one it can: acr on the identity")
    func essentialACR() async throws {
        let h = try SimulatedSessionEnvironment()
        h.presenter.enqueue(.approve(subject: "alice"))
        await #expect(throws: SessionError.verificationFailed(.acrMismatch)) {
            try await h.session.signIn(options: try AuthorizationRequestOptions(acr: .essential(["urn:example:hardware-key"])))
        }
        #expect(h.provider.authorizationRecords.last?.acrIsEssential == true)

        h.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await h.session.signIn(options: try AuthorizationRequestOptions(acr: .essential(["urn:sessionkit:sim:mfa"])))
        #expect(identity.claims.authenticationContextClass == "urn:sessionkit:sim:mfa")
    }

    @Test("a refresh does not re-check max_age against the original auth_time")
    func refreshIgnoresMaxAge() async throws {
        let h = try SimulatedSessionEnvironment()
        h.presenter.enqueue(.approve(subject: "alice"))
        try await h.session.signIn(options: try AuthorizationRequestOptions(maxAge: 60))
        h.clock.advance(by: .seconds(3540))
        _ = try await h.session.validAccessToken()
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.session.stage == .active)
    }

    // MARK: - No refresh token

    /// A provider that issues a refresh token only when `offline_access` is granted.
    private func offlineOnlyHarness(policy: AuthorizationRequestOptions.OfflineAccessPolicy = .asConfigured) throws
        -> SimulatedSessionEnvironment
    {
        try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(refreshTokensRequireOfflineAccess: true)) {
            $0.authorizationOptions = try! AuthorizationRequestOptions(offlineAccess: policy)
        }
    }

    @Test("without a refresh token the session is active until its access token expires, then asks for sign-in")
    func activeUntilTheAccessTokenExpires() async throws {
        let h = try offlineOnlyHarness()
        await h.startRecording()
        let stored = try await h.signIn()
        #expect(stored.refreshToken == nil)
        let token = try await h.session.validAccessToken()

        // Inside the refresh lead time there is nothing to refresh with: the token is still good.
        h.clock.advance(by: .seconds(3590))
        #expect(try await h.session.validAccessToken() == token)
        await #expect(throws: SessionError.unsupported(.refreshWithoutRefreshToken)) { try await h.session.refresh() }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 0)

        h.clock.advance(by: .seconds(10))
        let error = await SessionCallResult { () async throws(SessionError) in try await h.session.validAccessToken() }.error
        #expect(error == .sessionExpired)
        #expect(error?.category == .signInRequired)
        #expect(error?.identifier == "session_expired")
        #expect(h.session.stage == .signedOut)
        #expect(h.steps.last == .move(.active, .signedOut, .sessionExpired))
        #expect(h.provider.requestCount(grantType: "refresh_token") == 0)
    }

    @Test("the offline_access policy asks for the scope, and the provider then issues a refresh token")
    func offlineAccessPolicy() async throws {
        let h = try offlineOnlyHarness(policy: .request)
        let stored = try await h.signIn()
        #expect(h.provider.authorizationRecords.last?.scopes.contains("offline_access") == true)
        #expect(stored.refreshToken != nil)
        h.clock.advance(by: .seconds(3590))
        _ = try await h.session.validAccessToken()
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)

        // A per-sign-in `never` removes it again.
        try await h.session.signOut()
        h.presenter.enqueue(.approve(subject: "alice"))
        try await h.session.signIn(options: try AuthorizationRequestOptions(offlineAccess: .never))
        #expect(h.provider.authorizationRecords.last?.scopes.contains("offline_access") == false)
        #expect(h.store.record.session?.refreshToken == nil)
    }

    @Test("a stored session without a refresh token restores while its access token lasts, and not after")
    func restoreWithoutARefreshToken() async throws {
        let h = try offlineOnlyHarness()
        try await h.signIn()
        h.clock.advance(by: .seconds(1800))
        let relaunched = await h.relaunch()
        #expect(try await relaunched.restore() == .active)
        #expect(h.provider.tokenRequestCount == 1, "only the sign-in's code exchange")
        _ = try await relaunched.validAccessToken()

        h.clock.advance(by: .seconds(1800))
        let later = await h.relaunch()
        await #expect(throws: SessionError.sessionExpired) { try await later.restore() }
        #expect(later.stage == .signedOut)
    }

    @Test("sign-out of a session without a refresh token revokes its access token, then wipes")
    func signOutRevokesTheAccessToken() async throws {
        let h = try offlineOnlyHarness()
        try await h.signIn()
        let token = try await h.session.validAccessToken()
        #expect(h.provider.isAccessTokenActive(token.secret))
        try await h.session.signOut()
        #expect(h.provider.requestCount(for: .revocation) == 1)
        #expect(!h.provider.isAccessTokenActive(token.secret))
        #expect(h.store.record.isEmpty)
    }
}
