import Testing

/// The OpenID Connect wire layer against django-oauth-toolkit.
@Suite(
    .enabled(if: ProviderEnvironment.djangoOAuthToolkit != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct DjangoOAuthToolkitWireTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.djangoOAuthToolkit! }

    @Test func discoveryNamesUserInfoAndEndSession() async throws {
        try await WireScenarios.discoveryNamesTheNewEndpoints(environment)
    }

    @Test func maxAgeBringsAFreshAuthTime() async throws {
        try await WireScenarios.maxAgeBringsAFreshAuthTime(environment)
    }

    @Test func userInfoMatchesTheVerifiedSubject() async throws {
        try await WireScenarios.userInfoMatchesTheVerifiedSubject(environment)
    }

    @Test func endSessionRedirectsBackWithTheStateAndDeletesTheTokens() async throws {
        try await WireScenarios.endSessionRedirectsBackWithTheState(environment)
    }

    @Test func anUnregisteredPostLogoutRedirectIsRefused() async throws {
        try await WireScenarios.unregisteredPostLogoutRedirectIsRefused(environment)
    }

    @Test(.enabled(if: ProviderEnvironment.djangoOAuthToolkit?.deviceClientID != nil))
    func deviceSignInApprovedByAScriptedBrowser() async throws {
        try await WireScenarios.deviceSignInApprovedByAScriptedBrowser(environment)
    }

    @Test(.enabled(if: ProviderEnvironment.djangoOAuthToolkit?.deviceClientID != nil))
    func deviceSignInDenied() async throws {
        try await WireScenarios.deviceSignInDenied(environment)
    }
}

/// The OpenID Connect wire layer against oidc-provider-mock (no device grant there).
@Suite(
    .enabled(if: ProviderEnvironment.oidcProviderMock != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct OIDCProviderMockWireTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.oidcProviderMock! }

    @Test func discoveryNamesUserInfoAndEndSession() async throws {
        try await WireScenarios.discoveryNamesTheNewEndpoints(environment)
    }

    @Test func maxAgeBringsAFreshAuthTime() async throws {
        try await WireScenarios.maxAgeBringsAFreshAuthTime(environment)
    }

    @Test func userInfoMatchesTheVerifiedSubject() async throws {
        try await WireScenarios.userInfoMatchesTheVerifiedSubject(environment)
    }

    @Test func endSessionRedirectsBackWithTheState() async throws {
        try await WireScenarios.endSessionRedirectsBackWithTheState(environment)
    }
}
