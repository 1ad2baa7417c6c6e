import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@Suite("Simulated provider: discovery and authorization")
struct SimulatedProviderAuthorizationTests {
    @Test func discoveryListsTheProfileEndpointsUnderTheIssuer() async throws {
        let fixture = try ProviderFixture()
        let response = try await fixture.get(.discovery)
        #expect(response.status == 200)
        let document = try ProviderFixture.json(response)
        #expect(document["issuer"] as? String == "https://sim.1pass.test")
        #expect(document["authorization_endpoint"] as? String == "https://sim.1pass.test/oauth/authorize")
        #expect(document["token_endpoint"] as? String == "https://sim.1pass.test/oauth/token")
        #expect(document["revocation_endpoint"] as? String == "https://sim.1pass.test/oauth/revoke")
        #expect(document["jwks_uri"] as? String == "https://sim.1pass.test/.well-known/jwks.json")
        #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
    }

    @Test func issuerClientAndRedirectAreConfigurable() async throws {
        let configuration = SimulatedProviderConfiguration(
            issuer: URL(string: "https://idp.example.test/tenant")!, clientID: "other-app",
            redirectURI: URL(string: "https://app.example.test/callback")!)
        let fixture = try ProviderFixture(configuration)
        let document = try ProviderFixture.json(try await fixture.get(.discovery))
        #expect(document["issuer"] as? String == "https://idp.example.test/tenant")
        #expect(document["token_endpoint"] as? String == "https://idp.example.test/tenant/oauth/token")

        let tokens = try await fixture.signIn(subject: "bob")
        let verified = try fixture.validate(tokens.idToken, keys: try await fixture.jwks())
        #expect(verified.claims.issuer == "https://idp.example.test/tenant")
        #expect(verified.claims.audience == ["other-app"])
    }

    @Test func approvalRedirectsWithCodeStateAndIssuer() throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let callback = try fixture.provider.authorize(fixture.authorizationURL(pkce: pkce, state: "s+/ 1"), subject: "alice")
        // Read apart from the URL, which carries the code, so a failure cannot print it.
        let (scheme, host, path) = (callback.scheme, callback.host, callback.path)
        #expect(scheme == "com.example.app")
        #expect(host == "oauth")
        #expect(path == "/callback")
        let query = ProviderFixture.query(callback)
        let code = try ProviderFixture.code(in: callback)
        #expect(!code.value.isEmpty)
        #expect(query["state"] == "s+/ 1")
        #expect(query["iss"] == "https://sim.1pass.test")
        #expect(query["error"] == nil)
    }

    @Test func denialRedirectsWithAccessDenied() throws {
        let fixture = try ProviderFixture()
        let callback = try fixture.provider.authorize(
            fixture.authorizationURL(pkce: try PKCE.generate()), subject: "alice", decision: .deny)
        let query = ProviderFixture.query(callback)
        #expect(query["error"] == "access_denied")
        #expect(query["state"] == "state-1")
        #expect(query["code"] == nil)
    }

    @Test func unknownClientAndRedirectAreNeverRedirectedTo() throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        #expect(throws: SimulatedProviderAuthorizationError.unknownClient) {
            try fixture.provider.authorize(fixture.authorizationURL(pkce: pkce, clientID: "intruder"), subject: "alice")
        }
        #expect(throws: SimulatedProviderAuthorizationError.redirectURIMismatch) {
            try fixture.provider.authorize(
                fixture.authorizationURL(pkce: pkce, redirectURI: "https://evil.test/cb"), subject: "alice")
        }
        #expect(throws: SimulatedProviderAuthorizationError.notAuthorizationEndpoint) {
            try fixture.provider.authorize(URL(string: "https://elsewhere.test/oauth/authorize")!, subject: "alice")
        }
    }

    @Test func requestsWithoutS256OrCodeFlowComeBackAsErrors() throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let plain = try fixture.provider.authorize(fixture.authorizationURL(pkce: pkce, challengeMethod: "plain"), subject: "a")
        #expect(ProviderFixture.query(plain)["error"] == "invalid_request")
        let implicit = try fixture.provider.authorize(fixture.authorizationURL(pkce: pkce, responseType: "token"), subject: "a")
        #expect(ProviderFixture.query(implicit)["error"] == "unsupported_response_type")
        let noOpenID = try fixture.provider.authorize(fixture.authorizationURL(pkce: pkce, scope: "email"), subject: "a")
        #expect(ProviderFixture.query(noOpenID)["error"] == "invalid_scope")
        #expect(ProviderFixture.query(plain)["state"] == "state-1")
    }

    @Test func codeExchangeIssuesAVerifiableIDTokenWithNonceAndAtHash() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn(subject: "alice", nonce: "n-42")
        let verified = try fixture.validate(
            tokens.idToken, keys: try await fixture.jwks(), nonce: "n-42", accessToken: tokens.accessToken)
        #expect(verified.claims.subject == "alice")
        #expect(verified.claims.nonce == "n-42")
        let expectedHash = AccessTokenHash.compute(for: tokens.accessToken.value)
        #expect(verified.claims.accessTokenHash == expectedHash)
        #expect(verified.claims.issuedAt == fixture.clock.wallClockNow())
        #expect(verified.claims.expiresAt == fixture.clock.wallClockNow().addingTimeInterval(3600))
        #expect(verified.keyID == fixture.provider.currentKeyID)
        #expect(fixture.provider.activeGrantCount == 1)
    }

    @Test func tokenResponseAnnouncesLifetimeAndForbidsCaching() async throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(accessTokenLifetime: .seconds(900)))
        let pkce = try PKCE.generate()
        let response = try await fixture.exchange(code: try fixture.authorizeCode(subject: "a", pkce: pkce), pkce: pkce)
        let object = try ProviderFixture.json(response)
        #expect(object["expires_in"] as? Int == 900)
        #expect(object["token_type"] as? String == "Bearer")
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test func pkceMismatchIsRejected() async throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let code = try fixture.authorizeCode(subject: "alice", pkce: pkce)
        let wrong = try await fixture.exchange(code: code, pkce: try PKCE.generate())
        #expect(wrong.status == 400)
        #expect(ProviderFixture.errorCode(wrong) == "invalid_grant")
        let missing = try await fixture.post(
            .token,
            form: [
                ("grant_type", "authorization_code"), ("code", code.value),
                ("redirect_uri", fixture.configuration.redirectURI.absoluteString),
                ("client_id", fixture.configuration.clientID),
            ])
        #expect(ProviderFixture.errorCode(missing) == "invalid_grant")
        #expect(fixture.provider.activeGrantCount == 0)
    }

    @Test func redirectURIAndClientMustMatchTheAuthorization() async throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let code = try fixture.authorizeCode(subject: "alice", pkce: pkce)
        let verifier = Secret(pkce.verifier)
        let otherRedirect = try await fixture.exchange(code: code, verifier: verifier, redirectURI: "com.example.app://other")
        #expect(ProviderFixture.errorCode(otherRedirect) == "invalid_grant")
        let otherClient = try await fixture.exchange(code: code, verifier: verifier, clientID: "intruder")
        #expect(otherClient.status == 401)
        #expect(ProviderFixture.errorCode(otherClient) == "invalid_client")
        // Neither attempt consumed the code.
        #expect(try await fixture.exchange(code: code, verifier: verifier).status == 200)
    }

    @Test func codeReuseIsRejectedAndRevokesWhatTheCodeIssued() async throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let code = try fixture.authorizeCode(subject: "alice", pkce: pkce)
        let first = try ProviderFixture.tokens(try await fixture.exchange(code: code, pkce: pkce))
        #expect(fixture.provider.isRefreshTokenActive(first.refreshToken))

        let replay = try await fixture.exchange(code: code, pkce: pkce)
        #expect(replay.status == 400)
        #expect(ProviderFixture.errorCode(replay) == "invalid_grant")
        #expect(!fixture.provider.isRefreshTokenActive(first.refreshToken))
        #expect(!fixture.provider.isAccessTokenActive(first.accessToken))
        #expect(fixture.provider.revokedChains.map(\.reason) == [.authorizationCodeReuse])
    }

    @Test func expiredCodesAreRejected() async throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let code = try fixture.authorizeCode(subject: "alice", pkce: pkce)
        fixture.clock.advance(by: .seconds(61))
        let response = try await fixture.exchange(code: code, pkce: pkce)
        #expect(ProviderFixture.errorCode(response) == "invalid_grant")
    }

    @Test func registeredIdentityClaimsAppearInIDTokens() async throws {
        let fixture = try ProviderFixture()
        fixture.provider.register(
            SimulatedProviderUser(
                subject: "anon-7", canonicalSubject: "alice", isCanonical: false, linkedSubjects: ["old-1", "old-2"],
                isAnonymous: false, wasPreviouslyAnonymous: true))
        let tokens = try await fixture.signIn(subject: "anon-7")
        let claims = try fixture.validate(tokens.idToken, keys: try await fixture.jwks()).claims
        #expect(claims.subject == "anon-7")
        #expect(claims.canonicalSubject == "alice")
        #expect(claims.effectiveSubject == "alice")
        #expect(claims.isCanonical == false)
        #expect(claims.linkedSubjects == ["old-1", "old-2"])
        #expect(claims.anonymous == false)
        #expect(claims.previouslyAnonymous == true)
    }

    @Test func additionalAudiencesMakeAnArrayWithAuthorizedParty() async throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(additionalAudiences: ["api.sim"]))
        let tokens = try await fixture.signIn()
        let claims = try fixture.validate(tokens.idToken, keys: try await fixture.jwks()).claims
        #expect(claims.audience == ["sim-client", "api.sim"])
        #expect(claims.authorizedParty == "sim-client")
    }

    @Test func unknownHostPathAndMethodAreAnsweredLikeAServer() async throws {
        let fixture = try ProviderFixture()
        await #expect(throws: TransportError.self) {
            try await fixture.provider.send(HTTPRequest(method: "GET", url: URL(string: "https://other.test/.well-known/jwks.json")!))
        }
        let unknown = try await fixture.provider.send(
            HTTPRequest(method: "GET", url: URL(string: "https://sim.1pass.test/nothing")!))
        #expect(unknown.status == 404)
        let wrongMethod = try await fixture.provider.send(HTTPRequest(method: "GET", url: fixture.url(.token)))
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.header("Allow") == "POST")
    }
}
