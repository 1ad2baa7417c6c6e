import Foundation
import SessionKit
import Testing

/// Dynamic client registration (RFC 7591, OpenID Connect Dynamic Client Registration 1.0) and its
/// management (RFC 7592) at idpyoidc 5.0.0's registration endpoint, behind
/// `Scripts/providers/idp_server.py`, through ``ClientRegistrar``; then a session that signs in
/// with the issued `client_id` (code flow with PKCE) and, for a confidential registration, its
/// issued secret at the token and revocation endpoints.
///
/// What idpyoidc gets wrong about registration, and how the front end works around it, is written
/// in that script (search for "idpyoidc 5.0.0:"); the client is the one the simulated provider
/// tests.
@Suite(
    .enabled(
        if: ProviderEnvironment.idpyoidc?.registrationEndpoint != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct IDPyOIDCRegistrationTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.idpyoidc! }

    /// A registrar at the provider's discovered registration endpoint, keeping the registration in
    /// a file store of its own directory.
    private struct Rig {
        let registrar: ClientRegistrar
        let store: FileCredentialStore
        let directory: URL

        init(_ environment: ProviderEnvironment, method: ClientAuthenticationMethod, clientName: String) async throws {
            let transport = URLSessionTransport(clock: ContinuousClock(), deadline: .seconds(20))
            let discovered = try await ProviderConfiguration.discover(
                issuer: environment.issuer, clientID: "", redirectURI: environment.redirectURI, transport: transport)
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-registration-\(UUID().uuidString)")
            store = FileCredentialStore(directory: directory)
            let wallClock = OffsetWallClock()
            registrar = ClientRegistrar(
                provider: discovered,
                metadata: ClientMetadata(redirectURIs: [environment.redirectURI], tokenEndpointAuthMethod: method, clientName: clientName),
                store: store, transport: transport, now: { wallClock.now() })
        }

        func cleanUp() {
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func discoveryNamesTheRegistrationEndpoint() async throws {
        let rig = try await Rig(environment, method: .none, clientName: "discovery")
        defer { rig.cleanUp() }
        #expect(rig.registrar.provider.registrationEndpoint == environment.registrationEndpoint)
    }

    /// A native public client: registered without keys and without a secret, read back with its
    /// registration access token, used for a sign-in with PKCE, a refresh and a revocation, then
    /// deleted (after which its token reads nothing and its client id signs no one in).
    @Test func aNativePublicClientRegistersReadsSignsInAndIsDeleted() async throws {
        let rig = try await Rig(environment, method: .none, clientName: "SessionKit public")
        defer { rig.cleanUp() }

        let registration = try await rig.registrar.register()
        #expect(!registration.clientID.isEmpty && registration.clientID != environment.clientID)
        #expect(registration.tokenEndpointAuthMethod == .none)
        #expect(registration.clientSecret == nil, "RFC 7591 §2: a client of method none has no secret")
        #expect(registration.clientSecretExpiresAt == nil)
        #expect(registration.registrationAccessToken != nil)
        #expect(registration.registrationClientURI != nil)
        #expect(registration.redirectURIs == [environment.redirectURI])
        #expect(registration.clientAuthentication.method == .none)
        #expect(try await rig.store.loadRegistration() == registration)

        // RFC 7592 §2.1: the client configuration endpoint answers the same registration.
        let read = try await rig.registrar.read()
        #expect(read.clientID == registration.clientID)
        #expect(read.tokenEndpointAuthMethod == .none)
        #expect(read.clientSecret == nil)

        try await signInRefreshAndSignOut(registration, user: "registered-public")

        // RFC 7592 §2.3: deleted there, forgotten here.
        try await rig.registrar.delete()
        #expect(try await rig.store.loadRegistration() == nil)
        // The deleted registration's access token no longer reads it (RFC 7592 §2.1: 401).
        try await rig.store.saveRegistration(registration)
        do {
            try await rig.registrar.read()
            Issue.record("a deleted registration was read")
        } catch {
            #expect(error.code == .invalidToken)
        }
        // And the deleted client id signs no one in.
        var deleted = environment
        deleted.clientID = registration.clientID
        let harness = try await IntegrationHarness.make(deleted, user: "deleted-client")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        await #expect(throws: SessionError.self) { try await session.signIn() }
        #expect(session.stage == .signedOut)
    }

    /// A confidential registration (`client_secret_basic`): the issued secret, with its expiry,
    /// authenticates the code exchange, the refresh and the revocation; a wrong secret is refused
    /// at the token endpoint.
    @Test func aConfidentialRegistrationAuthenticatesWithItsIssuedSecret() async throws {
        let rig = try await Rig(environment, method: .clientSecretBasic, clientName: "SessionKit confidential")
        defer { rig.cleanUp() }

        let registration = try await rig.registrar.register()
        #expect(registration.tokenEndpointAuthMethod == .clientSecretBasic)
        let secret = try #require(registration.clientSecret)
        let expiry = try #require(registration.clientSecretExpiresAt, "the front end's registrations expire after 30 days")
        #expect(expiry > Date().addingTimeInterval(29 * 86_400))
        #expect(!registration.isSecretExpired(at: Date()))
        #expect(registration.clientAuthentication.method == .clientSecretBasic)
        // Within its lifetime the stored registration is used as it is, with no request.
        #expect(try await rig.registrar.currentRegistration() == registration)

        try await signInRefreshAndSignOut(registration, user: "registered-confidential")

        var wrong = registration
        wrong.clientSecret = Secret(secret.value + "-wrong")
        var environment = self.environment
        environment.clientID = registration.clientID
        let harness = try await IntegrationHarness.make(environment, user: "wrong-secret") { $0.use(wrong) }
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        do {
            try await session.signIn()
            Issue.record("a wrong secret was accepted")
        } catch {
            #expect(error.providerError?.status == 401)
            #expect(error.providerError?.oauthError == "invalid_client")
        }
        try await rig.registrar.delete()
    }

    /// Signs a user in with the registered client (code flow, PKCE S256), refreshes, checks the
    /// access token at UserInfo and signs out (RFC 7009 revocation, with the client's authentication).
    private func signInRefreshAndSignOut(_ registration: ClientRegistration, user: String) async throws {
        var registered = environment
        registered.clientID = registration.clientID
        let harness = try await IntegrationHarness.make(registered, user: user) { $0.use(registration) }
        defer { harness.cleanUp() }
        #expect(harness.configuration.provider.clientID == registration.clientID)
        try registration.clientAuthentication.check(against: harness.configuration.provider)
        let session = harness.makeSession()
        let recorder = TransitionRecorder()
        session.addObserver { recorder.record($0) }

        let identity = try await session.signIn()
        #expect(identity.audience == [registration.clientID])
        // The provider requires PKCE (S256) of every client: the exchange passed its check.
        #expect(harness.transport.log.contains { $0.grantType == "authorization_code" })
        let first = try await session.validAccessToken()
        let refreshed = try await session.refresh()
        #expect(refreshed.secret != first.secret)
        #expect(try await harness.userInfoStatus(refreshed.secret) == 200)
        try await session.signOut()
        #expect(session.stage == .signedOut)
        #expect(recorder.reasons.contains(.revocationConfirmed))
    }
}
