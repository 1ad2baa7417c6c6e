import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Dynamic client registration (RFC 7591, OpenID Connect Dynamic Client Registration 1.0) and its
/// management (RFC 7592) against the simulated provider's registration endpoint, on a test clock.
@Suite("Client registration")
struct ClientRegistrarTests {
    static let redirect = URL(string: "com.example.app://oauth/callback")!

    /// A provider, a store and a registrar for the provider's discovered configuration.
    struct Rig {
        let clock: TestClock
        let provider: SimulatedProvider<TestClock>
        let store: InMemoryCredentialStore
        let discovered: ProviderConfiguration

        init(_ configuration: SimulatedProviderConfiguration = SimulatedProviderConfiguration()) async throws {
            let clock = TestClock()
            self.clock = clock
            provider = try SimulatedProvider(
                configuration: configuration, clock: clock, now: { clock.wallClockNow() },
                signingKeys: SimulatedProviderKeys.shared(count: 3))
            store = InMemoryCredentialStore()
            discovered = try await ProviderConfiguration.discover(
                issuer: configuration.issuer.absoluteString, clientID: "", redirectURI: ClientRegistrarTests.redirect, transport: provider)
        }

        func registrar(
            _ metadata: ClientMetadata = ClientMetadata(redirectURIs: [ClientRegistrarTests.redirect]),
            transport: (any HTTPTransport)? = nil
        ) -> ClientRegistrar {
            let clock = clock
            return ClientRegistrar(
                provider: discovered, metadata: metadata, store: store, transport: transport ?? provider, now: { clock.wallClockNow() })
        }
    }

    @Test("discovery names the registration endpoint")
    func discoveryNamesTheEndpoint() async throws {
        let rig = try await Rig()
        #expect(rig.discovered.registrationEndpoint?.absoluteString == "https://sim.1pass.test/oauth/register")
    }

    @Test("registration sends a native code-flow client's metadata and stores what was issued")
    func registersAndStores() async throws {
        let rig = try await Rig()
        let registration = try await rig.registrar().register()
        let sent = try #require(rig.provider.registrationRecords.first)
        #expect(sent.redirectURIs == [Self.redirect.absoluteString])
        #expect(sent.grantTypes == ["authorization_code", "refresh_token"])
        #expect(sent.responseTypes == ["code"])
        #expect(sent.tokenEndpointAuthMethod == "client_secret_basic")
        #expect(sent.applicationType == "native")
        #expect(registration.clientID == sent.clientID)
        #expect(registration.clientSecret != nil)
        #expect(registration.clientSecretExpiresAt == nil, "the wire's 0: the secret never expires")
        #expect(registration.registrationAccessToken != nil)
        #expect(registration.registrationClientURI?.absoluteString == "https://sim.1pass.test/oauth/register/\(registration.clientID)")
        #expect(registration.tokenEndpointAuthMethod == .clientSecretBasic)
        #expect(rig.store.registration == registration)
        #expect(rig.provider.isRegistered(clientID: registration.clientID))
    }

    @Test("the stored registration is used while its secret lasts; an expired one is replaced (injected clock)")
    func reregistersWhenTheSecretExpires() async throws {
        var configuration = SimulatedProviderConfiguration()
        configuration.registeredSecretLifetime = .seconds(3600)
        let rig = try await Rig(configuration)
        let registrar = rig.registrar()
        let first = try await registrar.currentRegistration()
        #expect(first.clientSecretExpiresAt == rig.clock.wallClockNow().addingTimeInterval(3600))
        rig.clock.advance(by: .seconds(3599))
        #expect(try await registrar.currentRegistration() == first)
        #expect(rig.provider.requestCount(for: .registration) == 1, "no request while the secret lasts")
        rig.clock.advance(by: .seconds(1))
        let second = try await registrar.currentRegistration()
        #expect(second.clientID != first.clientID)
        #expect(rig.provider.requestCount(for: .registration) == 2)
        #expect(rig.store.registration == second)
    }

    @Test("a registration without the redirect URI sign-ins use is replaced")
    func anotherRedirectIsReplaced() async throws {
        let rig = try await Rig()
        let first = try await rig.registrar().currentRegistration()
        let moved = URL(string: "com.example.app://oauth/moved")!
        let second = try await rig.registrar(ClientMetadata(redirectURIs: [moved])).currentRegistration()
        #expect(second.clientID != first.clientID)
        #expect(second.redirectURIs == [moved])
    }

    @Test("a registration of another issuer is not reused")
    func anotherIssuersRegistrationIsReplaced() async throws {
        let rig = try await Rig()
        try await rig.store.saveRegistration(ClientRegistration(issuer: "https://other.example", clientID: "theirs"))
        let registration = try await rig.registrar().currentRegistration()
        #expect(registration.issuer == rig.discovered.issuer)
        #expect(registration.clientID != "theirs")
    }

    @Test("a session signs in, refreshes and signs out with the issued credentials (client_secret_basic)")
    func sessionUsesTheIssuedCredentials() async throws {
        let env = try SimulatedSessionEnvironment()
        let discovered = try await ProviderConfiguration.discover(
            issuer: env.configuration.provider.issuer, clientID: "", redirectURI: Self.redirect, transport: env.provider)
        let registrations = InMemoryCredentialStore()
        let clock = env.clock
        let registration = try await ClientRegistrar(
            provider: discovered, metadata: ClientMetadata(redirectURIs: [Self.redirect]), store: registrations, transport: env.provider,
            now: { clock.wallClockNow() }
        ).currentRegistration()
        var configuration = SessionConfiguration(provider: discovered)
        configuration.use(registration)
        #expect(configuration.provider.clientID == registration.clientID)
        #expect(configuration.clientAuthentication.method == .clientSecretBasic)
        let session = Session(
            configuration: configuration, transport: env.provider, store: InMemoryCredentialStore(), presenter: env.presenter,
            deviceKeys: .none,
            clock: env.clock, wallClock: { clock.wallClockNow() })
        env.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await session.signIn()
        #expect(identity.subject == "alice")
        _ = try await session.refresh()
        try await session.signOut()
        #expect(env.provider.revokedChains.last?.clientID == registration.clientID)
        let refusals = env.provider.requestLog.filter { $0.endpoint == .token && $0.status != 200 }
        #expect(refusals.isEmpty, "every token request authenticated with the issued secret")
        await session.shutdown()
    }

    @Test("the simulated provider refuses a registered client without its secret, with a wrong one, or once it expired")
    func providerChecksTheSecret() async throws {
        var configuration = SimulatedProviderConfiguration()
        configuration.registeredSecretLifetime = .seconds(60)
        let rig = try await Rig(configuration)
        let registration = try await rig.registrar().register()
        let secret = try #require(registration.clientSecret?.value)
        func refresh(basic: String?) async throws -> (Int, String?) {
            var headers = [("Content-Type", "application/x-www-form-urlencoded")]
            if let basic {
                headers.append(("Authorization", "Basic " + Data("\(registration.clientID):\(basic)".utf8).base64EncodedString()))
            }
            let body = Data("grant_type=refresh_token&refresh_token=unknown&client_id=\(registration.clientID)".utf8)
            let response = try await rig.provider.send(
                HTTPRequest(method: "POST", url: rig.discovered.tokenEndpoint, headers: headers, body: body))
            let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            return (response.status, object?["error"] as? String)
        }
        #expect(try await refresh(basic: nil) == (401, "invalid_client"))
        #expect(try await refresh(basic: "wrong") == (401, "invalid_client"))
        #expect(try await refresh(basic: secret) == (400, "invalid_grant"), "authenticated: the unknown refresh token is judged")
        rig.clock.advance(by: .seconds(60))
        #expect(try await refresh(basic: secret) == (401, "invalid_client"), "the secret expired")
    }

    @Test("a secret that expires while a session runs: the refresh is refused, the session ends, the next launch registers again")
    func secretExpiresDuringASession() async throws {
        var provider = SimulatedProviderConfiguration()
        provider.registeredSecretLifetime = .seconds(1800)
        let env = try SimulatedSessionEnvironment(provider: provider)
        let discovered = try await ProviderConfiguration.discover(
            issuer: env.configuration.provider.issuer, clientID: "", redirectURI: Self.redirect, transport: env.provider)
        let clock = env.clock
        let registrations = InMemoryCredentialStore()
        let registrar = ClientRegistrar(
            provider: discovered, metadata: ClientMetadata(redirectURIs: [Self.redirect]), store: registrations, transport: env.provider,
            now: { clock.wallClockNow() })
        func session(_ registration: ClientRegistration) -> Session {
            var configuration = SessionConfiguration(provider: discovered)
            configuration.use(registration)
            return Session(
                configuration: configuration, transport: env.provider, store: InMemoryCredentialStore(), presenter: env.presenter,
                deviceKeys: .none, clock: clock, wallClock: { clock.wallClockNow() })
        }
        let first = try await registrar.currentRegistration()
        let running = session(first)
        env.presenter.enqueue(.approve(subject: "alice"))
        try await running.signIn()
        clock.advance(by: .seconds(1800))
        do {
            _ = try await running.refresh()
            Issue.record("a refresh with an expired secret succeeded")
        } catch {
            #expect(error.requiresSignIn)
        }
        #expect(env.provider.requestLog.last { $0.endpoint == .token }?.errorCode == "invalid_client")
        await running.shutdown()

        let second = try await registrar.currentRegistration()
        #expect(second.clientID != first.clientID)
        let relaunched = session(second)
        env.presenter.enqueue(.approve(subject: "alice"))
        #expect(try await relaunched.signIn().subject == "alice")
        await relaunched.shutdown()
    }

    @Test("the stored form of a registration is pinned: a change to it would make stored registrations unreadable")
    func storedForm() throws {
        let registration = ClientRegistration(
            issuer: "https://sim.1pass.test", clientID: "c", clientSecret: Secret("s"),
            clientSecretExpiresAt: Date(timeIntervalSince1970: 1_800_000_000),
            clientIDIssuedAt: Date(timeIntervalSince1970: 1_700_000_000), registrationAccessToken: Secret("t"),
            registrationClientURI: URL(string: "https://sim.1pass.test/oauth/register/c"), tokenEndpointAuthMethod: .clientSecretBasic,
            redirectURIs: [Self.redirect])
        let sealed = try StoredPayloadCodec.seal(registration)
        #expect(try StoredPayloadCodec.openRegistration(sealed) == registration)
        let payload = String(decoding: sealed.dropFirst(StoreEnvelope.headerSize).dropLast(32), as: UTF8.self)
        #expect(
            payload
                == #"{"clientID":"c","clientIDIssuedAt":721692800,"clientSecret":"s","clientSecretExpiresAt":821692800,"#
                + #""issuer":"https://sim.1pass.test","redirectURIs":["com.example.app://oauth/callback"],"#
                + #""registrationAccessToken":"t","registrationClientURI":"https://sim.1pass.test/oauth/register/c","#
                + #""tokenEndpointAuthMethod":"client_secret_basic"}"#)
        #expect(throws: CredentialStoreError.self) { try StoredPayloadCodec.openGuest(sealed) }
    }

    @Test("client_secret_post is registered and used when asked for")
    func clientSecretPost() async throws {
        let rig = try await Rig()
        let registration = try await rig.registrar(
            ClientMetadata(redirectURIs: [Self.redirect], tokenEndpointAuthMethod: .clientSecretPost)
        )
        .register()
        #expect(registration.tokenEndpointAuthMethod == .clientSecretPost)
        #expect(registration.clientAuthentication.method == .clientSecretPost)
    }

    @Test("a public client (none) gets no secret and authenticates with none")
    func publicClient() async throws {
        let rig = try await Rig()
        let registration = try await rig.registrar(ClientMetadata(redirectURIs: [Self.redirect], tokenEndpointAuthMethod: .none)).register()
        #expect(registration.clientSecret == nil)
        #expect(registration.clientAuthentication.method == .none)
    }

    @Test("a secret issued to a public registration (none) is neither kept nor judged (RFC 7591 §2)")
    func secretIssuedToAPublicClient() async throws {
        let rig = try await Rig()
        rig.provider.script(
            .rawAnswer(
                status: 201,
                body: #"{"client_id":"c","client_secret":"s","client_secret_expires_at":1,"token_endpoint_auth_method":"none"}"#),
            on: .registration)
        let registration = try await rig.registrar(ClientMetadata(redirectURIs: [Self.redirect], tokenEndpointAuthMethod: .none)).register()
        #expect(registration.clientSecret == nil)
        #expect(registration.clientSecretExpiresAt == nil)
        #expect(!registration.isSecretExpired(at: rig.clock.wallClockNow()))
        #expect(registration.clientAuthentication.method == .none)
        #expect(rig.store.registration == registration)
        // A stored registration of method none authenticates with none, whatever it holds.
        let stored = ClientRegistration(
            issuer: rig.discovered.issuer, clientID: "c", clientSecret: Secret("s"), tokenEndpointAuthMethod: .none)
        #expect(stored.clientAuthentication.method == .none)
    }

    @Test("read (GET) returns the registration with the registration access token; delete (DELETE) removes it there and here")
    func readAndDelete() async throws {
        let rig = try await Rig()
        let registrar = rig.registrar()
        let registered = try await registrar.register()
        let read = try await registrar.read()
        #expect(read == registered)
        try await registrar.delete()
        #expect(!rig.provider.isRegistered(clientID: registered.clientID))
        #expect(rig.store.registration == nil)
        let methods = rig.provider.requestLog.filter { $0.endpoint == .clientConfiguration }.map(\.method)
        #expect(methods == ["GET", "DELETE"])
    }

    @Test("a refused registration access token is invalid_token and keeps the stored registration")
    func refusedRegistrationAccessToken() async throws {
        let rig = try await Rig()
        let registrar = rig.registrar()
        var registered = try await registrar.register()
        registered.registrationAccessToken = Secret("not-the-token")
        try await rig.store.saveRegistration(registered)
        await #expect(throws: ClientRegistrationError.self) { try await registrar.read() }
        do {
            try await registrar.delete()
            Issue.record("a wrong token deleted the registration")
        } catch {
            #expect(error.code == .invalidToken)
            #expect(error.status == 401)
        }
        #expect(rig.store.registration == registered)
        #expect(rig.provider.isRegistered(clientID: registered.clientID))
    }

    @Test("read and delete without a registration access token are not supported")
    func noRegistrationAccessToken() async throws {
        let rig = try await Rig()
        try await rig.store.saveRegistration(ClientRegistration(issuer: rig.discovered.issuer, clientID: "manual"))
        do {
            try await rig.registrar().delete()
            Issue.record("deleted without a token")
        } catch {
            #expect(error.code == .notSupported)
        }
        #expect(rig.store.registration?.clientID == "manual")
    }

    @Test(
        "the provider's refusals are typed (RFC 7591 §3.2.2)",
        arguments: [
            ("invalid_redirect_uri", ClientRegistrationError.Code.invalidRedirectURI),
            ("invalid_client_metadata", .invalidClientMetadata), ("invalid_software_statement", .invalidSoftwareStatement),
            ("unapproved_software_statement", .unapprovedSoftwareStatement), ("access_denied", .refused),
        ])
    func scriptedRefusals(error: String, code: ClientRegistrationError.Code) async throws {
        let rig = try await Rig()
        rig.provider.script(.rawAnswer(status: 400, body: #"{"error":"\#(error)","error_description":"no"}"#), on: .registration)
        do {
            try await rig.registrar().register()
            Issue.record("a refusal registered")
        } catch {
            #expect(error.code == code)
            #expect(error.status == 400)
        }
        #expect(rig.store.registration == nil)
    }

    @Test("the simulated provider checks what it receives: a web redirect for a native client is invalid_redirect_uri")
    func providerChecksRedirects() async throws {
        let rig = try await Rig()
        for (redirect, type) in [
            ("https://app.example/cb", "native"), ("com.example.app://cb#frag", "native"), ("http://app.example/cb", "web"),
        ] {
            do {
                try await rig.registrar(ClientMetadata(redirectURIs: [URL(string: redirect)!], applicationType: type)).register()
                Issue.record("\(redirect) registered for \(type)")
            } catch {
                #expect(error.code == .invalidRedirectURI, "\(redirect)")
            }
        }
        do {
            try await rig.registrar(ClientMetadata(redirectURIs: [Self.redirect], tokenEndpointAuthMethod: .privateKeyJWT)).register()
            Issue.record("an unsupported method registered")
        } catch {
            #expect(error.code == .invalidClientMetadata)
        }
        #expect(rig.provider.registrationRecords.allSatisfy { $0.clientID == nil })
    }

    @Test(
        "a malformed registration answer loses nothing stored",
        arguments: [
            "not json", "[]", #"{"client_secret":"s","client_secret_expires_at":0}"#, #"{"client_id":""}"#,
            #"{"client_id":7}"#, #"{"client_id":"c","client_secret":"s"}"#,
            #"{"client_id":"c","client_secret":"s","client_secret_expires_at":"soon"}"#,
            #"{"client_id":"c"}"#, #"{"client_id":"c","client_secret":"s","client_secret_expires_at":0,"registration_access_token":"t"}"#,
            #"{"client_id":"c","client_secret":"s","client_secret_expires_at":0,"registration_access_token":"t","registration_client_uri":"http://evil.example/r"}"#,
            #"{"client_id":"c","client_secret":"s","client_secret_expires_at":0,"token_endpoint_auth_method":"tls_client_auth"}"#,
            #"{"client_id":"c","client_secret":"s","client_secret_expires_at":0,"redirect_uris":["com.other://cb"]}"#,
            #"{"client_id":"c","client_secret":"s","client_secret_expires_at":-5}"#,
        ])
    func malformedAnswers(body: String) async throws {
        let rig = try await Rig()
        let kept = ClientRegistration(issuer: "https://other.example", clientID: "kept", clientSecret: Secret("kept-secret"))
        try await rig.store.saveRegistration(kept)
        rig.provider.script(.rawAnswer(status: 201, body: body), on: .registration)
        do {
            _ = try await rig.registrar().currentRegistration()
            Issue.record("a malformed answer was taken")
        } catch {
            #expect(error.code == .malformedResponse, "\(body)")
        }
        #expect(rig.store.registration == kept)
    }

    @Test("a storage failure is a typed error; a registration that could not be stored is deleted at the provider")
    func storageFailures() async throws {
        let rig = try await Rig()
        rig.store.failNext(.saveRegistration, with: .noSpace)
        do {
            try await rig.registrar().register()
            Issue.record("a failed save succeeded")
        } catch {
            #expect(error.code == .storage)
        }
        let issued = try #require(rig.provider.registrationRecords.first?.clientID)
        #expect(!rig.provider.isRegistered(clientID: issued), "the provider was asked to forget the client")
        rig.store.failNext(.loadRegistration, with: .corrupted("damaged"))
        do {
            _ = try await rig.registrar().currentRegistration()
            Issue.record("a failed load registered")
        } catch {
            #expect(error.code == .storage)
        }
    }

    @Test("no registration endpoint: not supported, nothing sent")
    func noEndpoint() async throws {
        let rig = try await Rig()
        var provider = rig.discovered
        provider.registrationEndpoint = nil
        let registrar = ClientRegistrar(
            provider: provider, metadata: ClientMetadata(redirectURIs: [Self.redirect]), store: rig.store, transport: rig.provider,
            now: { Date() })
        do {
            try await registrar.register()
            Issue.record("registered without an endpoint")
        } catch {
            #expect(error.code == .notSupported)
        }
        #expect(rig.provider.requestCount(for: .registration) == 0)
    }

    @Test("the issued secret and registration access token are never rendered")
    func secretsAreNotRendered() async throws {
        let rig = try await Rig()
        let registration = try await rig.registrar().register()
        let secret = try #require(registration.clientSecret?.value)
        let token = try #require(registration.registrationAccessToken?.value)
        var dumped = ""
        dump(registration, to: &dumped)
        for rendering in [
            registration.description, String(reflecting: registration), dumped, "\(registration.clientAuthentication)",
            String(reflecting: rig.provider.registrationRecords), String(reflecting: rig.provider.requestLog),
        ] {
            #expect(!rendering.contains(secret))
            #expect(!rendering.contains(token))
        }
    }

    @Test("the file store keeps the registration in its own file, across instances")
    func fileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "sessionkit-registration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let registration = ClientRegistration(
            issuer: "https://sim.1pass.test", clientID: "c", clientSecret: Secret("s"),
            clientSecretExpiresAt: Date(timeIntervalSince1970: 2_000_000_000),
            registrationAccessToken: Secret("t"), registrationClientURI: URL(string: "https://sim.1pass.test/oauth/register/c"),
            tokenEndpointAuthMethod: .clientSecretPost, redirectURIs: [Self.redirect])
        try await FileCredentialStore(directory: directory).saveRegistration(registration)
        #expect(try await FileCredentialStore(directory: directory).loadRegistration() == registration)
        #expect(try await FileCredentialStore(directory: directory).load().session == nil, "the credential record is untouched")
        try await FileCredentialStore(directory: directory).removeRegistration()
        #expect(try await FileCredentialStore(directory: directory).loadRegistration() == nil)
    }
}
