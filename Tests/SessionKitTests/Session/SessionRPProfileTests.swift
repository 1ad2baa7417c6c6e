import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// The OpenID Connect RP certification cases (Basic, Config, Dynamic, RP-Initiated Logout) a native
/// code-flow client can play against the simulated provider, each named by its test id, with the
/// specification section it checks. The DocC *Testing* article's table lists every case of the
/// profiles and where each one is tested or why it does not apply.
@Suite("OpenID RP profile cases")
struct SessionRPProfileTests {
    /// A session on a discovered configuration of the simulated provider, as a certification run
    /// configures a relying party.
    private func discovered(
        _ provider: SimulatedProviderConfiguration = SimulatedProviderConfiguration(),
        configure: @escaping (inout SessionConfiguration) -> Void = { _ in }
    ) async throws -> SimulatedSessionEnvironment {
        let probe = try SimulatedSessionEnvironment(provider: provider)
        let base = probe.configuration.provider
        let found = try await ProviderConfiguration.discover(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI, scopes: base.scopes, transport: probe.provider)
        return try SimulatedSessionEnvironment(provider: provider) {
            $0.provider.allowsMissingKeyID = found.allowsMissingKeyID
            $0.provider.tokenEndpointAuthMethods = found.tokenEndpointAuthMethods
            configure(&$0)
        }
    }

    /// Signs in with the next token response's id_token altered, and returns the outcome.
    private func signIn(with tampering: SimulatedProviderFault.IDTokenTampering) async throws -> Result<SessionIdentity, SessionError> {
        let env = try await discovered()
        env.provider.script(.tamperedIDToken(tampering), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        do throws(SessionError) {
            return .success(try await env.session.signIn())
        } catch {
            #expect(env.store.record.session == nil, "a refused sign-in stores nothing")
            return .failure(error)
        }
    }

    private func expectRefused(_ tampering: SimulatedProviderFault.IDTokenTampering, as error: IDTokenError) async throws {
        let outcome = try await signIn(with: tampering)
        #expect(outcome.failure == .verificationFailed(error))
    }

    // MARK: Basic

    @Test("rp-response_type-code: a code-flow sign-in (Core §3.1.2.1)")
    func rpResponseTypeCode() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await env.session.signIn()
        #expect(identity.subject == "alice")
        let url = try #require(env.presenter.presentedRequests.first?.url)
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.first { $0.name == "response_type" }?.value == "code")
        #expect(items.first { $0.name == "nonce" }?.value?.isEmpty == false, "rp-nonce-unless-code-flow: a nonce is sent")
        try await env.finish()
    }

    @Test("rp-id_token-sig-rs256: an RS256-signed id_token is verified and accepted (Core §3.1.3.7 step 6)")
    func rpIDTokenSigRS256() async throws {
        let outcome = try await signIn(with: .subject("alice"))
        #expect((try? outcome.get())?.subject == "alice")
    }

    @Test("rp-id_token-bad-sig-rs256: a bad RS256 signature is refused (Core §3.1.3.7 step 6)")
    func rpIDTokenBadSigRS256() async throws { try await expectRefused(.badSignature, as: .badSignature) }

    @Test("rp-id_token-sig-none: an unsigned id_token is refused in the code flow (Core §3.1.3.7 step 6)")
    func rpIDTokenSigNone() async throws {
        // `alg` `none` leaves the signature empty, which no JWS the validator reads may have.
        try await expectRefused(.unsigned, as: .malformed)
    }

    @Test("rp-id_token-issuer-mismatch: another iss is refused (Core §3.1.3.7 step 2)")
    func rpIDTokenIssuerMismatch() async throws { try await expectRefused(.issuer("https://evil.example"), as: .issuerMismatch) }

    @Test("rp-id_token-aud: an aud without the client is refused (Core §3.1.3.7 step 3)")
    func rpIDTokenAud() async throws { try await expectRefused(.audience("another-client"), as: .audienceMismatch) }

    @Test("rp-id_token-iat: an id_token without iat is refused (Core §2, §3.1.3.7 step 10)")
    func rpIDTokenIat() async throws { try await expectRefused(.missingIssuedAt, as: .malformed) }

    @Test("rp-id_token-sub: an id_token without a subject is refused (Core §2)")
    func rpIDTokenSub() async throws { try await expectRefused(.subject(""), as: .missingClaim) }

    @Test("rp-nonce-invalid: another nonce is refused (Core §3.1.3.7 step 11)")
    func rpNonceInvalid() async throws { try await expectRefused(.nonce("another-nonce"), as: .nonceMismatch) }

    @Test("rp-id_token-kid-absent-single-jwks: no kid and one key in the set is accepted (Core §10.1)")
    func rpIDTokenKidAbsentSingleJWKS() async throws {
        let outcome = try await signIn(with: .noKeyID)
        #expect((try? outcome.get())?.subject == "alice")
    }

    @Test("rp-id_token-kid-absent-multiple-jwks: no kid and several keys in the set is refused (Core §10.1)")
    func rpIDTokenKidAbsentMultipleJWKS() async throws {
        let env = try await discovered()
        _ = try env.provider.rotateSigningKey(retainPreviousFor: .seconds(3600))
        env.provider.script(.tamperedIDToken(.noKeyID), on: .token)
        env.presenter.enqueue(.approve(subject: "alice"))
        await #expect(throws: SessionError.verificationFailed(.missingKeyID)) { try await env.session.signIn() }
    }

    @Test("rp-scope-userinfo-claims: the claims the scopes ask for come from UserInfo (Core §5.4, §5.3)")
    func rpScopeUserInfoClaims() async throws {
        let env = try await discovered()
        env.provider.register(SimulatedProviderUser(subject: "alice", profile: ProfileClaims(email: "alice@example.com")))
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let info = try #require(try await env.session.fetchUserInfo())
        #expect(info.profile.email == "alice@example.com")
        try await env.finish()
    }

    @Test("rp-userinfo-bearer-header: the access token goes in the Authorization header (Core §5.3.1, RFC 6750 §2.1)")
    func rpUserInfoBearerHeader() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        #expect(try await env.session.fetchUserInfo()?.subject == "alice")
        try await env.finish()
    }

    @Test("rp-userinfo-bad-sub-claim: a UserInfo answer for another sub is refused (Core §5.3.2)")
    func rpUserInfoBadSubClaim() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.answerUserInfo(asSubject: "mallory")
        await #expect(throws: SessionError.userInfoRejected(.subjectMismatch)) { try await env.session.fetchUserInfo() }
        try await env.finish()
    }

    @Test("rp-userinfo-sig: a signed UserInfo answer is verified (Core §5.3.2)")
    func rpUserInfoSig() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.signUserInfo(.valid)
        #expect(try await env.session.fetchUserInfo()?.isSigned == true)
        env.provider.signUserInfo(.badSignature)
        await #expect(throws: SessionError.userInfoRejected(.badSignature)) { try await env.session.fetchUserInfo() }
        try await env.finish()
    }

    // MARK: Config

    @Test("rp-discovery-openid-configuration: the configuration comes from the discovery document (Discovery §4)")
    func rpDiscoveryOpenIDConfiguration() async throws {
        let env = try SimulatedSessionEnvironment()
        let base = env.configuration.provider
        let found = try await ProviderConfiguration.discover(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI, transport: env.provider)
        #expect(found.tokenEndpoint == base.tokenEndpoint)
        #expect(found.jwksURI == base.jwksURI)
        #expect(found.userInfoEndpoint == base.userInfoEndpoint)
    }

    @Test("rp-discovery-issuer-not-matching-config: a document naming another issuer is refused (Discovery §4.3)")
    func rpDiscoveryIssuerNotMatchingConfig() async throws {
        let env = try SimulatedSessionEnvironment()
        let base = env.configuration.provider
        env.provider.answerDiscovery(asIssuer: "https://evil.example")
        await #expect(throws: ConfigurationError.issuerMismatch(expected: base.issuer, found: "https://evil.example")) {
            try await ProviderConfiguration.discover(
                issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI, transport: env.provider)
        }
    }

    @Test("rp-key-rotation-op-sign-key: a key rotated after sign-in is fetched for the next id_token (Core §10.1.1)")
    func rpKeyRotationOPSignKey() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let next = try env.provider.rotateSigningKey(retainPreviousFor: .zero)
        _ = try await env.session.refresh()
        let idToken = try #require(env.store.record.session?.idToken)
        #expect(try CompactJWS.decode(idToken.value).header.keyID == next)
        try await env.finish()
    }

    @Test("rp-key-rotation-op-sign-key-native: a key rotated just before a new sign-in's id_token is fetched (Core §10.1.1)")
    func rpKeyRotationOPSignKeyNative() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        try await env.session.signOut()
        // The keys the first sign-in fetched are still cached; the next id_token is signed under a new kid.
        let next = try env.provider.rotateSigningKey(retainPreviousFor: .zero)
        env.presenter.enqueue(.approve(subject: "alice"))
        #expect(try await env.session.signIn().subject == "alice")
        let idToken = try #require(env.store.record.session?.idToken)
        #expect(try CompactJWS.decode(idToken.value).header.keyID == next)
        #expect(env.provider.requestCount(for: .jwks) == 2, "one fetch for the first sign-in, one for the unknown kid")
        try await env.finish()
    }

    @Test("rp-discovery-jwks_uri-keys: the id_token is verified with the keys at the discovered jwks_uri (Discovery §3)")
    func rpDiscoveryJWKSURIKeys() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let fetched = env.provider.requestLog.filter { $0.endpoint == .jwks }.map(\.path)
        #expect(fetched == ["/.well-known/jwks.json"])
        try await env.finish()
    }

    @Test("rp-discovery-webfinger-acct: an acct: identifier leads to the issuer by WebFinger (Discovery §2)")
    func rpDiscoveryWebFingerAcct() async throws {
        let env = try SimulatedSessionEnvironment()
        let found = try await ProviderConfiguration.discover(
            identifier: "acct:alice@sim.1pass.test", clientID: env.configuration.provider.clientID,
            redirectURI: env.configuration.provider.redirectURI, transport: env.provider)
        #expect(found.issuer == env.configuration.provider.issuer)
        let query = try #require(env.provider.requestLog.first { $0.endpoint == .webFinger })
        #expect(query.status == 200)
    }

    @Test("rp-discovery-webfinger-url: a URL identifier leads to the issuer by WebFinger (Discovery §2.1)")
    func rpDiscoveryWebFingerURL() async throws {
        let env = try SimulatedSessionEnvironment()
        let found = try await ProviderConfiguration.discover(
            identifier: "https://sim.1pass.test/joe", clientID: env.configuration.provider.clientID,
            redirectURI: env.configuration.provider.redirectURI, transport: env.provider)
        #expect(found.issuer == env.configuration.provider.issuer)
    }

    @Test("rp-discovery-webfinger-http-href: an issuer link over plain http is refused (Discovery §2)")
    func rpDiscoveryWebFingerHTTPHref() async throws {
        let env = try SimulatedSessionEnvironment()
        env.provider.answerWebFinger(.issuer("http://sim.1pass.test"))
        await #expect(throws: ConfigurationError.webFingerFailed("the WebFinger answer's issuer is not an https URL")) {
            try await ProviderConfiguration.issuer(forIdentifier: "alice@sim.1pass.test", transport: env.provider)
        }
    }

    @Test("rp-discovery-webfinger-unknown-member: members the client does not know are ignored (RFC 7033 §4.4)")
    func rpDiscoveryWebFingerUnknownMember() async throws {
        let env = try SimulatedSessionEnvironment()
        env.provider.answerWebFinger(.unknownMembers)
        #expect(
            try await ProviderConfiguration.issuer(forIdentifier: "alice@sim.1pass.test", transport: env.provider)
                == "https://sim.1pass.test")
    }

    // MARK: Dynamic

    @Test("rp-registration-dynamic: the client registers, then signs in with the issued credentials (Registration §3)")
    func rpRegistrationDynamic() async throws {
        let env = try SimulatedSessionEnvironment()
        let base = env.configuration.provider
        let found = try await ProviderConfiguration.discover(
            issuer: base.issuer, clientID: "", redirectURI: base.redirectURI, scopes: base.scopes, transport: env.provider)
        let clock = env.clock
        let registration = try await ClientRegistrar(
            provider: found, metadata: ClientMetadata(redirectURIs: [base.redirectURI]), store: InMemoryCredentialStore(),
            transport: env.provider, now: { clock.wallClockNow() }
        ).currentRegistration()
        var configuration = SessionConfiguration(provider: found)
        configuration.use(registration)
        let session = Session(
            configuration: configuration, transport: env.provider, store: InMemoryCredentialStore(), presenter: env.presenter,
            deviceKeys: .none, clock: env.clock, wallClock: { clock.wallClockNow() })
        env.presenter.enqueue(.approve(subject: "alice"))
        #expect(try await session.signIn().subject == "alice")
        let record = try #require(env.provider.registrationRecords.first)
        #expect(record.applicationType == "native")
        #expect(record.clientID == registration.clientID)
        #expect(env.provider.authorizationRecords.count == 1)
        await session.shutdown()
    }

    @Test(
        "rp-registration-redirect_uris: the registration names the redirect URI and a refusal of it is typed (Registration §2, RFC 7591 §3.2.2)"
    )
    func rpRegistrationRedirectURIs() async throws {
        let env = try SimulatedSessionEnvironment()
        let found = try await ProviderConfiguration.discover(
            issuer: env.configuration.provider.issuer, clientID: "", redirectURI: env.configuration.provider.redirectURI,
            transport: env.provider)
        let registrar = ClientRegistrar(
            provider: found, metadata: ClientMetadata(redirectURIs: [URL(string: "https://web.example/cb")!]),
            store: InMemoryCredentialStore(),
            transport: env.provider, now: { Date(timeIntervalSince1970: 0) })
        do {
            try await registrar.register()
            Issue.record("a native client registered an https redirect URI")
        } catch {
            #expect(error.code == .invalidRedirectURI)
        }
        #expect(env.provider.registrationRecords.first?.redirectURIs == ["https://web.example/cb"])
    }

    @Test("rp-request_uri-sig, rp-request_uri-unsigned: do not apply; the request goes as plain query parameters (Core §6)")
    func rpRequestURI() async throws {
        let env = try await discovered()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let url = try #require(env.presenter.presentedRequests.first?.url)
        let names = Set((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name))
        #expect(names.isDisjoint(with: ["request", "request_uri"]))
        #expect(names.isSuperset(of: ["client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge"]))
        try await env.finish()
    }

    // MARK: RP-Initiated Logout

    @Test(
        "rp-init-logout: sign-out ends the provider's session with id_token_hint and post_logout_redirect_uri (RP-Initiated Logout §2, §3)")
    func rpInitLogout() async throws {
        let env = try await discovered {
            $0.endsProviderSessionAtSignOut = true
            $0.postLogoutRedirectURI = URL(string: "com.example.app://oauth/logged-out")!
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        #expect(env.provider.hasBrowserSession(for: "alice"))
        env.presenter.enqueue(.endSession())
        try await env.session.signOut()
        let url = try #require(env.presenter.presentedRequests.last?.url)
        let names = Set((URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map(\.name))
        #expect(names.isSuperset(of: ["id_token_hint", "post_logout_redirect_uri", "state"]))
        #expect(!env.provider.hasBrowserSession(for: "alice"))
        #expect(env.session.stage == .signedOut)
        try await env.finish()
    }

    @Test("rp-init-logout-other-state: a return with a state the client did not send is not taken (RP-Initiated Logout §3)")
    func rpInitLogoutOtherState() async throws {
        try await expectLogoutReturnRefused { url in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.queryItems = (components.queryItems ?? []).map {
                $0.name == "state" ? URLQueryItem(name: "state", value: "other") : $0
            }
            return components.url!
        }
    }

    @Test("rp-init-logout-no-state: a return without the state the client sent is not taken (RP-Initiated Logout §3)")
    func rpInitLogoutNoState() async throws {
        try await expectLogoutReturnRefused { url in
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            components.queryItems = (components.queryItems ?? []).filter { $0.name != "state" }
            if components.queryItems?.isEmpty == true { components.queryItems = nil }
            return components.url!
        }
    }

    /// Signs in, signs out with a logout page that never answers by itself, and offers the session
    /// the provider's return altered by `alter`: it is not consumed; the logout ends by its timeout
    /// (the credentials already wiped) and says the provider's session may remain.
    private func expectLogoutReturnRefused(_ alter: (URL) -> URL) async throws {
        let env = try await discovered {
            $0.endsProviderSessionAtSignOut = true
            $0.postLogoutRedirectURI = URL(string: "com.example.app://oauth/logged-out")!
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.presenter.enqueue(.neverAnswer)
        let session = env.session
        let signOut = Task { try await session.signOut() }
        await env.presenter.waitForSuspendedPresentations(count: 1)
        let request = try #require(env.presenter.presentedRequests.last)
        let returned = try #require(try env.provider.endSession(request.url))
        #expect(env.session.handle(alter(returned)) == false)
        #expect(env.session.stage == .revoking, "the logout still waits for its own return")
        #expect(env.store.record.session == nil, "the credentials were wiped before the page opened")
        _ = await env.advanceToNextSleeper()
        try await signOut.value
        #expect(env.session.stage == .signedOut)
    }

    // MARK: Further misbehaviours of a certification run

    @Test("Core §3.1.3.7 step 5: an azp other than the client is refused")
    func wrongAuthorizedParty() async throws { try await expectRefused(.authorizedParty("another-client"), as: .audienceMismatch) }

    @Test("Core §3.1.3.7 step 9: an expired id_token is refused")
    func expiredIDToken() async throws { try await expectRefused(.expired, as: .expired) }

    @Test("Core §3.1.3.7 step 10: an id_token issued in the future is refused")
    func futureIssuedAt() async throws { try await expectRefused(.issuedInFuture, as: .malformed) }

    @Test("Core §3.2.2.9: an at_hash for another access token is refused")
    func badAccessTokenHash() async throws { try await expectRefused(.accessTokenHash, as: .accessTokenHashMismatch) }
}
