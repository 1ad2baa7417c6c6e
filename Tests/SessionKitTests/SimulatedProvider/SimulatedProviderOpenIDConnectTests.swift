import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// The simulated provider beyond the fixed sign-in, driven through the library's own wire code:
/// request options with `auth_time` and `acr`, standard and custom claims, UserInfo, end-session
/// and the device authorization grant.
@Suite struct SimulatedProviderOpenIDConnectTests {
    let fixture: ProviderFixture
    let client: ProviderClient

    init(_ configuration: SimulatedProviderConfiguration = SimulatedProviderConfiguration()) throws {
        fixture = try ProviderFixture(configuration)
        let clock = fixture.clock
        client = ProviderClient(
            configuration: try fixture.provider.providerConfiguration(), transport: fixture.provider, now: { clock.wallClockNow() })
    }

    struct SignIn {
        var callback: URL
        var tokens: TokenResponse?
        var claims: IDTokenClaims?
    }

    /// Authorizes with `options` as `subject`, exchanges the code and validates the id_token with
    /// the checks the options ask for.
    private func signIn(
        _ subject: String = "alice", options: AuthorizationRequestOptions = .empty
    ) async throws -> (SignIn, IDTokenError?) {
        let pkce = try PKCE.generate()
        let url = try client.authorizationURL(codeChallenge: pkce.challenge, state: "state-1", nonce: "nonce-1", options: options)
        let callback = try fixture.provider.authorize(url, subject: subject)
        guard ProviderFixture.query(callback)["code"] != nil else { return (SignIn(callback: callback), nil) }
        let tokens = try await client.exchangeCode(try ProviderFixture.code(in: callback), codeVerifier: Secret(pkce.verifier))
        let expecting = fixture.expectations(accessToken: tokens.accessToken).requiring(options)
        let keys = try await client.fetchKeys()
        let idToken = try #require(tokens.idToken)
        do throws(IDTokenError) {
            let verified = try IDTokenValidator.validate(idToken.value, keys: keys, expecting: expecting, now: fixture.clock.wallClockNow())
            return (SignIn(callback: callback, tokens: tokens, claims: verified.claims), nil)
        } catch {
            return (SignIn(callback: callback, tokens: tokens), error)
        }
    }

    // MARK: Request options

    @Test func optionsAreRecordedWithoutSecrets() async throws {
        let options = try AuthorizationRequestOptions(
            prompt: [.login], loginHint: "alice@example.com", idTokenHint: Secret("hint-token-value"), uiLocales: ["fr", "en"],
            acr: .voluntary(["urn:sessionkit:sim:mfa"]), maxAge: 600,
            resources: [URL(string: "https://api.example.com/")!, URL(string: "https://files.example.com/")!],
            additionalParameters: ["tenant": "acme"])
        let (result, error) = try await signIn(options: options)
        #expect(error == nil)
        let record = try #require(fixture.provider.authorizationRecords.last)
        #expect(record.prompt == ["login"])
        #expect(record.maxAge == 600)
        #expect(record.loginHint == "alice@example.com")
        #expect(record.hadIDTokenHint)
        #expect(record.uiLocales == ["fr", "en"])
        #expect(record.acrValues == ["urn:sessionkit:sim:mfa"])
        #expect(!record.acrIsEssential)
        #expect(record.resources == ["https://api.example.com/", "https://files.example.com/"])
        #expect(record.otherParameterNames == ["tenant"])
        #expect(record.authenticated)
        #expect(record.error == nil)
        var dumped = ""
        dump(fixture.provider.authorizationRecords, to: &dumped)
        for secret in ["state-1", "nonce-1", "hint-token-value"] {
            #expect(!dumped.contains(secret))
        }
        #expect(result.claims?.authenticationContextClass == "urn:sessionkit:sim:mfa")
    }

    @Test func maxAgeBringsAuthTimeAndReauthenticatesWhenExceeded() async throws {
        let (first, firstError) = try await signIn(options: try AuthorizationRequestOptions(maxAge: 300))
        #expect(firstError == nil)
        let signedInAt = fixture.clock.wallClockNow()
        #expect(first.claims?.authenticationTime == Date(timeIntervalSince1970: signedInAt.timeIntervalSince1970.rounded(.down)))

        // Within max_age the browser session answers: same auth_time, no new authentication.
        fixture.clock.advance(by: .seconds(120))
        let (second, _) = try await signIn(options: try AuthorizationRequestOptions(maxAge: 300))
        #expect(second.claims?.authenticationTime == first.claims?.authenticationTime)
        #expect(fixture.provider.authorizationRecords.last?.authenticated == false)

        // Past max_age the person authenticates again, and auth_time moves.
        fixture.clock.advance(by: .seconds(400))
        let (third, thirdError) = try await signIn(options: try AuthorizationRequestOptions(maxAge: 300))
        #expect(thirdError == nil)
        #expect(fixture.provider.authorizationRecords.last?.authenticated == true)
        #expect(third.claims?.authenticationTime.map { $0 > signedInAt } == true)

        // Without max_age the provider leaves auth_time out.
        let (plain, _) = try await signIn()
        #expect(plain.claims?.authenticationTime == nil)
    }

    @Test func aTokenWithoutAuthTimeFailsTheMaxAgeCheck() async throws {
        let provider = fixture.provider
        let keys = try await client.fetchKeys()
        let token = try provider.signedIDToken(subject: "alice", nonce: "nonce-1")
        var expecting = fixture.expectations()
        expecting.maxAge = 60
        #expect(throws: IDTokenError.missingAuthTime) {
            try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: fixture.clock.wallClockNow())
        }
        let stale = try provider.signedIDToken(
            subject: "alice", nonce: "nonce-1", authTime: fixture.clock.wallClockNow().addingTimeInterval(-3600))
        #expect(throws: IDTokenError.authTimeTooOld) {
            try IDTokenValidator.validate(stale, keys: keys, expecting: expecting, now: fixture.clock.wallClockNow())
        }
    }

    @Test func promptNoneNeedsABrowserSession() async throws {
        let silent = try AuthorizationRequestOptions(prompt: [.none])
        let (refused, _) = try await signIn(options: silent)
        #expect(ProviderFixture.query(refused.callback)["error"] == "login_required")
        #expect(ProviderFixture.query(refused.callback)["state"] == "state-1")
        _ = try await signIn()
        #expect(fixture.provider.hasBrowserSession(for: "alice"))
        let (accepted, error) = try await signIn(options: silent)
        #expect(error == nil)
        #expect(accepted.tokens != nil)
        #expect(fixture.provider.authorizationRecords.map(\.error) == ["login_required", nil, nil])
    }

    @Test func essentialACRIsCheckedOnTheReturnedToken() async throws {
        let (met, metError) = try await signIn(
            options: try AuthorizationRequestOptions(acr: .essential(["urn:x", "urn:sessionkit:sim:mfa"])))
        #expect(metError == nil)
        #expect(met.claims?.authenticationContextClass == "urn:sessionkit:sim:mfa")
        #expect(fixture.provider.authorizationRecords.last?.acrIsEssential == true)
        let (_, unmet) = try await signIn(options: try AuthorizationRequestOptions(acr: .essential(["urn:unsupported"])))
        #expect(unmet == .acrMismatch)
    }

    // MARK: Claims and UserInfo

    private func registerAlice() {
        fixture.provider.register(
            SimulatedProviderUser(
                subject: "alice", email: "alice@old.example",
                profile: ProfileClaims(
                    name: "Alice Liddell", givenName: "Alice", familyName: "Liddell", preferredUsername: "alice",
                    email: "alice@example.com", emailVerified: true, picture: "https://example.com/a.png", locale: "en-GB",
                    updatedAt: Date(timeIntervalSince1970: 1_700_000_000)),
                authenticationMethods: ["pwd", "otp"],
                additionalClaims: ["tenant": .string("acme"), "roles": .array([.string("admin")]), "sub": .string("mallory")]))
    }

    @Test func standardAndCustomClaimsReachTheVerifiedToken() async throws {
        registerAlice()
        let (result, error) = try await signIn()
        #expect(error == nil)
        let claims = try #require(result.claims)
        #expect(claims.subject == "alice")
        #expect(claims.profile.name == "Alice Liddell")
        #expect(claims.profile.email == "alice@example.com")
        #expect(claims.profile.emailVerified == true)
        #expect(claims.profile.updatedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(claims.authenticationMethods == ["pwd", "otp"])
        #expect(try claims.custom("tenant", as: String.self) == "acme")
        #expect(try claims.custom("roles", as: [String].self) == ["admin"])
    }

    @Test func userInfoAnswersForTheTokensSubjectAndTheCheckCatchesAnother() async throws {
        registerAlice()
        let (result, _) = try await signIn()
        let accessToken = try #require(result.tokens?.accessToken)
        let info = try #require(try await client.fetchUserInfo(accessToken: accessToken, expectedSubject: "alice"))
        #expect(info.subject == "alice")
        #expect(info.profile.familyName == "Liddell")
        #expect(try info.custom("tenant", as: String.self) == "acme")

        fixture.provider.answerUserInfo(asSubject: "mallory")
        await #expect(throws: UserInfoFetchError.rejected(.subjectMismatch)) {
            try await client.fetchUserInfo(accessToken: accessToken, expectedSubject: "alice")
        }
        fixture.provider.answerUserInfo(asSubject: nil)
        do throws(UserInfoFetchError) {
            _ = try await client.fetchUserInfo(accessToken: Secret("not-a-token"), expectedSubject: "alice")
            Issue.record("an unknown access token was accepted")
        } catch {
            guard case .provider(let providerError) = error else { throw error }
            #expect(providerError.status == 401)
        }
        #expect(fixture.provider.requestCount(for: .userInfo) == 3)
    }

    // MARK: End session

    private static let loggedOut = URL(string: "com.example.app://oauth/logged-out")!

    @Test func endSessionEndsTheBrowserSessionAndReturnsTheState() async throws {
        let (result, _) = try await signIn()
        let hint = try #require(result.tokens?.idToken)
        let request = try EndSessionRequest(idTokenHint: hint, postLogoutRedirectURI: Self.loggedOut, state: Secret("logout-state-1"))
        let url = try #require(client.endSessionURL(for: request))
        let redirect = try #require(try fixture.provider.endSession(url))
        #expect(request.match(redirect) == .completed)
        #expect(!fixture.provider.hasBrowserSession(for: "alice"))
        #expect(
            fixture.provider.endSessionRecords.map(\.subject) == ["alice"]
                && fixture.provider.endSessionRecords.first?.postLogoutRedirectURI == Self.loggedOut.absoluteString)
        var dumped = ""
        dump(fixture.provider.endSessionRecords, to: &dumped)
        #expect(!dumped.contains("logout-state-1"))

        // The provider session is gone: a silent sign-in no longer succeeds.
        let (silent, _) = try await signIn(options: try AuthorizationRequestOptions(prompt: [.none]))
        #expect(ProviderFixture.query(silent.callback)["error"] == "login_required")
    }

    @Test func endSessionRefusesWhatItCannotTrust() async throws {
        let (result, _) = try await signIn()
        let hint = try #require(result.tokens?.idToken)
        let unregistered = try EndSessionRequest(
            idTokenHint: hint, postLogoutRedirectURI: URL(string: "https://evil.example/back")!, state: Secret("s"))
        #expect(throws: SimulatedProviderEndSessionError.unregisteredRedirectURI) {
            try fixture.provider.endSession(try #require(client.endSessionURL(for: unregistered)))
        }
        let forged = try EndSessionRequest(idTokenHint: Secret("e30.e30.c2ln"), postLogoutRedirectURI: Self.loggedOut, state: Secret("s"))
        #expect(throws: SimulatedProviderEndSessionError.invalidIDTokenHint) {
            try fixture.provider.endSession(try #require(client.endSessionURL(for: forged)))
        }
        #expect(fixture.provider.hasBrowserSession(for: "alice"))
        // Without a redirect, the session still ends and nothing comes back.
        #expect(try fixture.provider.endSession(try #require(client.endSessionURL(for: try EndSessionRequest(idTokenHint: hint)))) == nil)
        #expect(!fixture.provider.hasBrowserSession(for: "alice"))
    }

    // MARK: Device authorization

    /// Runs the poll planner against the provider on the test clock until it ends.
    private func pollUntilDone(_ authorization: DeviceAuthorization) async -> (DevicePollStep, [Duration]) {
        var planner = DevicePollPlanner(authorization)
        var step = planner.firstStep
        var elapsed = Duration.zero
        var waits: [Duration] = []
        while case .poll(let wait) = step {
            waits.append(wait)
            fixture.clock.advance(by: wait)
            elapsed += wait
            let answer: DevicePollAnswer
            do throws(ProviderError) {
                answer = .tokens(try await client.pollDeviceToken(authorization))
            } catch {
                answer = DevicePollAnswer(.failure(error))
            }
            step = planner.next(after: answer, elapsed: elapsed)
        }
        return (step, waits)
    }

    @Test func aScriptedDeviceApprovalAfterASlowDownGivesVerifiableTokens() async throws {
        fixture.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 4, slowDownAtPolls: [2]))
        let authorization = try #require(try await client.requestDeviceAuthorization())
        #expect(authorization.userCode == "SIMU-0001")
        #expect(authorization.verificationURI.absoluteString == "https://sim.1pass.test/device")
        #expect(authorization.verificationURIComplete?.absoluteString == "https://sim.1pass.test/device?user_code=SIMU-0001")
        #expect(authorization.interval == 5 && authorization.expiresIn == 600)

        let (step, waits) = await pollUntilDone(authorization)
        // poll 1 pending, poll 2 slow_down (+5 s, kept), poll 3 pending, poll 4 approved.
        #expect(waits == [.seconds(5), .seconds(5), .seconds(10), .seconds(10)])
        guard case .finished(let tokens) = step else {
            Issue.record("expected tokens, got \(step)")
            return
        }
        let keys = try await client.fetchKeys()
        let verified = try IDTokenValidator.validate(
            try #require(tokens.idToken).value, keys: keys,
            expecting: fixture.expectations(nonce: nil, accessToken: tokens.accessToken), now: fixture.clock.wallClockNow())
        #expect(verified.claims.subject == "alice")
        #expect(verified.claims.nonce == nil)
        #expect(tokens.refreshToken != nil)
        let grantType = ProviderClient.deviceCodeGrantType
        #expect(fixture.provider.requestCount(grantType: grantType) == 4)
        #expect(
            fixture.provider.requestLog.filter { $0.grantType == grantType }.map(\.errorCode)
                == ["authorization_pending", "slow_down", "authorization_pending", nil])
        // The device code is used up.
        await #expect(throws: ProviderError.self) { try await client.pollDeviceToken(authorization) }
        let log = fixture.provider.requestLog.map(\.description).joined(separator: "\n")
        #expect(!log.contains(authorization.deviceCode.value))
        #expect(!log.contains(tokens.accessToken.value))
    }

    @Test func pollingTooSoonIsAnsweredSlowDown() async throws {
        let authorization = try #require(try await client.requestDeviceAuthorization())
        fixture.clock.advance(by: .seconds(5))
        #expect(DevicePollAnswer(await poll(authorization)) == .authorizationPending)
        fixture.clock.advance(by: .seconds(2))
        #expect(DevicePollAnswer(await poll(authorization)) == .slowDown)
        // The provider's interval grew to 10 s: 9 s is still too soon, 10 s is not.
        fixture.clock.advance(by: .seconds(9))
        #expect(DevicePollAnswer(await poll(authorization)) == .slowDown)
        fixture.clock.advance(by: .seconds(15))
        #expect(DevicePollAnswer(await poll(authorization)) == .authorizationPending)
    }

    private func poll(_ authorization: DeviceAuthorization) async -> Result<TokenResponse, ProviderError> {
        do throws(ProviderError) {
            return .success(try await client.pollDeviceToken(authorization))
        } catch {
            return .failure(error)
        }
    }

    @Test func aDenialOrExpiryEndsTheDeviceSignIn() async throws {
        fixture.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 2, decision: .deny))
        let denied = try #require(try await client.requestDeviceAuthorization())
        #expect(await pollUntilDone(denied).0 == .failed(.accessDenied))

        let unanswered = try #require(try await client.requestDeviceAuthorization())
        let (step, waits) = await pollUntilDone(unanswered)
        #expect(step == .failed(.expired))
        #expect(waits.count == 119)
    }

    @Test func theVerificationPageDecidesByUserCode() async throws {
        let authorization = try #require(try await client.requestDeviceAuthorization())
        #expect(!fixture.provider.decideDeviceAuthorization(userCode: "SIMU-9999", subject: "bob"))
        #expect(fixture.provider.decideDeviceAuthorization(userCode: authorization.userCode, subject: "bob"))
        #expect(!fixture.provider.decideDeviceAuthorization(userCode: authorization.userCode, subject: "eve"))
        guard case .finished(let tokens) = await pollUntilDone(authorization).0 else {
            Issue.record("expected tokens")
            return
        }
        let claims = try await client.fetchUserInfo(accessToken: tokens.accessToken, expectedSubject: "bob")
        #expect(claims?.subject == "bob")
    }

    @Test func theDiscoveryDocumentListsTheNewEndpoints() async throws {
        let configuration = try await ProviderConfiguration.discover(
            issuer: fixture.configuration.issuer.absoluteString, clientID: fixture.configuration.clientID,
            redirectURI: fixture.configuration.redirectURI, transport: fixture.provider)
        let expected = try fixture.provider.providerConfiguration()
        #expect(configuration.userInfoEndpoint == expected.userInfoEndpoint)
        #expect(configuration.endSessionEndpoint == expected.endSessionEndpoint)
        #expect(configuration.deviceAuthorizationEndpoint == expected.deviceAuthorizationEndpoint)
        #expect(configuration.userInfoEndpoint != nil && configuration.endSessionEndpoint != nil)
    }
}
