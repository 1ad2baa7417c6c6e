import Foundation
import SessionKit
import Testing

/// A confidential client against django-oauth-toolkit: `client_secret_basic` (with RFC 6749
/// §2.3.1 form-encoding of a secret that needs it) and `client_secret_post` at the token and
/// revocation endpoints, through the session's request seam.
@Suite(
    .enabled(
        if: ProviderEnvironment.djangoOAuthToolkit?.confidentialClient != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct DjangoOAuthToolkitClientAuthenticationTests {
    private var environment: ProviderEnvironment {
        var environment = ProviderEnvironment.djangoOAuthToolkit!
        environment.clientID = environment.confidentialClient!.id
        return environment
    }

    private var secret: Secret { environment.confidentialClient!.secret }

    @Test func clientSecretBasicSignsInRefreshesAndRevokes() async throws {
        try await Self.signInRefreshAndSignOut(environment, authentication: .clientSecretBasic(secret))
    }

    @Test func clientSecretPostSignsInRefreshesAndRevokes() async throws {
        try await Self.signInRefreshAndSignOut(environment, authentication: .clientSecretPost(secret))
    }

    @Test func withoutClientAuthenticationTheCodeExchangeIsRefused() async throws {
        let harness = try await IntegrationHarness.make(environment, user: "public")
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        do {
            try await session.signIn()
            Issue.record("a confidential client signed in without authenticating")
        } catch {
            #expect(error.providerError?.status == 401)
            #expect(error.providerError?.oauthError == "invalid_client")
        }
        #expect(session.stage == .signedOut)
    }

    @Test func aWrongSecretIsRefusedAndNeverShown() async throws {
        let wrong = Secret("wrong " + secret.value)
        let harness = try await IntegrationHarness.make(environment, user: "wrong") { $0.clientAuthentication = .clientSecretBasic(wrong) }
        defer { harness.cleanUp() }
        let session = harness.makeSession()
        do {
            try await session.signIn()
            Issue.record("a wrong secret signed in")
        } catch {
            #expect(error.providerError?.oauthError == "invalid_client")
            #expect(!"\(error)".contains(wrong.value))
            #expect(!String(reflecting: error).contains(wrong.value))
        }
    }

    private static func signInRefreshAndSignOut(_ environment: ProviderEnvironment, authentication: ClientAuthentication) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "confidential") { $0.clientAuthentication = authentication }
        defer { harness.cleanUp() }
        #expect(harness.configuration.provider.tokenEndpointAuthMethods?.contains(authentication.method.rawValue) == true)
        try authentication.check(against: harness.configuration.provider)
        let session = harness.makeSession()

        let identity = try await session.signIn()
        #expect(identity.audience == [environment.clientID])
        let first = try await session.validAccessToken()
        let refreshed = try await session.refresh()
        #expect(refreshed.secret != first.secret)
        #expect(harness.transport.refreshRequests.count == 1)

        // Revocation with the same authentication: the provider confirms, the token is dead.
        try await session.signOut()
        #expect(session.stage == .signedOut)
        #expect(try await harness.userInfoStatus(refreshed.secret) == 401)
    }
}
