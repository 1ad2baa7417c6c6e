import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// A running session whose registered client's secret expires (RFC 7591 §3.2.1) keeps itself
/// current (``SessionConfiguration/use(_:renewingWith:)``): it reads its registration (RFC 7592
/// §2.1) for a rotated secret, or registers anew and ends with a typed error when the provider
/// no longer knows the client. Against the simulated provider, on a test clock.
@Suite("Registration renewal while a session runs")
struct ClientRegistrationRenewalTests {
    static let redirect = URL(string: "com.example.app://oauth/callback")!
    static let lifetime = 1800

    /// A provider whose registered secrets last ``lifetime`` seconds, a registrar keeping the
    /// registration in a store of its own, and sessions that renew with it.
    struct Rig {
        let env: SimulatedSessionEnvironment
        let registrations = InMemoryCredentialStore()
        let registrar: ClientRegistrar
        let discovered: ProviderConfiguration

        init(rotatesOnRead: Bool) async throws {
            var provider = SimulatedProviderConfiguration()
            provider.registeredSecretLifetime = .seconds(ClientRegistrationRenewalTests.lifetime)
            provider.rotatesExpiredSecretOnRead = rotatesOnRead
            let env = try SimulatedSessionEnvironment(provider: provider)
            self.env = env
            discovered = try await ProviderConfiguration.discover(
                issuer: env.configuration.provider.issuer, clientID: "", redirectURI: ClientRegistrationRenewalTests.redirect,
                transport: env.provider)
            let clock = env.clock
            registrar = ClientRegistrar(
                provider: discovered, metadata: ClientMetadata(redirectURIs: [ClientRegistrationRenewalTests.redirect]),
                store: registrations, transport: env.provider, now: { clock.wallClockNow() })
        }

        func session(_ registration: ClientRegistration) -> Session {
            var configuration = SessionConfiguration(provider: discovered)
            configuration.use(registration, renewingWith: registrar)
            let clock = env.clock
            return Session(
                configuration: configuration, transport: env.provider, store: InMemoryCredentialStore(), presenter: env.presenter,
                deviceKeys: .none, clock: clock, wallClock: { clock.wallClockNow() })
        }

        func signedIn() async throws -> (Session, ClientRegistration) {
            let registration = try await registrar.currentRegistration()
            let session = session(registration)
            env.presenter.enqueue(.approve(subject: "alice"))
            try await session.signIn()
            return (session, registration)
        }

        var configurationReads: [String] {
            env.provider.requestLog.filter { $0.endpoint == .clientConfiguration }.map(\.method)
        }
    }

    @Test("an expired secret is renewed by a read of the registration, stored, and the session goes on")
    func rotatedOnRead() async throws {
        let rig = try await Rig(rotatesOnRead: true)
        let (session, first) = try await rig.signedIn()
        let firstSecret = try #require(first.clientSecret)

        rig.env.clock.advance(by: .seconds(Self.lifetime - 1))
        _ = try await session.refresh()
        #expect(rig.configurationReads.isEmpty, "no read while the secret lasts")

        rig.env.clock.advance(by: .seconds(1))
        _ = try await session.refresh()
        #expect(session.stage == .active)
        #expect(rig.configurationReads == ["GET"])
        let stored = try #require(rig.registrations.registration)
        #expect(stored.clientID == first.clientID)
        #expect(stored.clientSecret != firstSecret, "the rotated secret is stored")
        #expect(stored.clientSecretExpiresAt == rig.env.clock.wallClockNow().addingTimeInterval(TimeInterval(Self.lifetime)))
        #expect(rig.env.provider.requestCount(for: .registration) == 1, "no new registration")
        let refusals = rig.env.provider.requestLog.filter { $0.endpoint == .token && $0.status != 200 }
        #expect(refusals.isEmpty, "no token request went out with the expired secret")

        // The rotated secret lasts: later requests read nothing.
        _ = try await session.refresh()
        #expect(rig.configurationReads == ["GET"])
        try await session.signOut()
        #expect(rig.env.provider.revokedChains.last?.clientID == first.clientID)
        await session.shutdown()
    }

    @Test(
        "a registration the provider no longer knows is replaced; the session ends with clientReplaced and never loops",
        arguments: [true, false])
    func goneIsReplaced(scriptedRefusal: Bool) async throws {
        // Without the refusal the provider answers the expired secret unchanged, which helps no more.
        let rig = try await Rig(rotatesOnRead: false)
        let (session, first) = try await rig.signedIn()
        let reasons = Locked<[TransitionReason]>([])
        session.addObserver { event in
            if case .transition(let transition) = event { reasons.withLock { $0.append(transition.reason) } }
        }
        if scriptedRefusal {
            rig.env.provider.script(.rawAnswer(status: 401, body: #"{"error":"invalid_token"}"#), on: .clientConfiguration)
        }
        rig.env.clock.advance(by: .seconds(Self.lifetime))

        do {
            _ = try await session.refresh()
            Issue.record("a session whose client was replaced refreshed")
        } catch {
            #expect(error.requiresSignIn)
        }
        #expect(session.stage == .signedOut)
        let replacement = try #require(rig.registrations.registration)
        #expect(replacement.clientID != first.clientID)
        #expect(rig.env.provider.requestCount(for: .registration) == 2)
        let ending = try #require(reasons.withLock { $0 }.last { $0.error?.providerError != nil }, "the session says why it ended")
        #expect(ending.error?.providerError.flatMap(Self.registrationError)?.code == .clientReplaced)
        #expect(ending.code == .refreshRejected)
        let replaced = try #require(ending.error?.providerError.flatMap(Self.registrationError))
        #expect(replaced.subject == "alice", "the account is named for the next sign-in")
        #expect(replaced.signInOptions.loginHint == replaced.loginHint)
        #expect(!"\(replaced)".contains("alice"), "the description names no account")
        let tokenRequestsAfterExpiry = rig.env.provider.requestLog.filter { $0.endpoint == .token && $0.status != 200 }
        #expect(tokenRequestsAfterExpiry.isEmpty, "the old refresh token was not sent with an expired secret")

        // Never a loop: a sign-in on the ended session fails at the code exchange without
        // registering again.
        rig.env.presenter.enqueue(.approve(subject: "alice"))
        do {
            try await session.signIn()
            Issue.record("the replaced client signed in")
        } catch {
            #expect(error.providerError.flatMap(Self.registrationError)?.code == .clientReplaced)
        }
        #expect(rig.env.provider.requestCount(for: .registration) == 2)
        await session.shutdown()

        // A session made from the new registration signs the same person in again.
        let current = try await rig.registrar.currentRegistration()
        #expect(current == replacement, "the stored replacement is used, with no request")
        #expect(rig.env.provider.requestCount(for: .registration) == 2)
        let next = rig.session(current)
        rig.env.presenter.enqueue(.approve(subject: "alice"))
        #expect(try await next.signIn().subject == "alice")
        await next.shutdown()
    }

    @Test("a renewal that fails otherwise is transient: the session keeps its credentials and renews at the next request")
    func failedRenewalKeepsTheSession() async throws {
        let rig = try await Rig(rotatesOnRead: true)
        let (session, first) = try await rig.signedIn()
        rig.env.provider.script(.serverError(status: 503), on: .clientConfiguration)
        rig.env.clock.advance(by: .seconds(Self.lifetime))

        do {
            _ = try await session.refresh()
            Issue.record("a refresh went out although the secret could not be renewed")
        } catch {
            #expect(!error.requiresSignIn)
        }
        #expect(session.stage == .active)
        #expect(rig.registrations.registration == first, "nothing stored changed")

        _ = try await session.refresh()
        #expect(session.stage == .active)
        #expect(rig.configurationReads == ["GET", "GET"])
        #expect(rig.registrations.registration?.clientID == first.clientID)
        #expect(rig.env.provider.requestCount(for: .registration) == 1)
        await session.shutdown()
    }

    @Test("a secret another process already renewed is taken from the store, with no request")
    func renewedElsewhere() async throws {
        let rig = try await Rig(rotatesOnRead: true)
        let (session, first) = try await rig.signedIn()
        rig.env.clock.advance(by: .seconds(Self.lifetime))
        // Another process's registrar reads (and so rotates and stores) first.
        let renewed = try await rig.registrar.read()
        #expect(renewed.clientSecret != first.clientSecret)

        _ = try await session.refresh()
        #expect(rig.configurationReads == ["GET"], "only the other process read")
        #expect(session.stage == .active)
        await session.shutdown()
    }

    private static func registrationError(_ error: ProviderError) -> ClientRegistrationError? {
        guard case .clientRegistration(let failure) = error else { return nil }
        return failure
    }
}
