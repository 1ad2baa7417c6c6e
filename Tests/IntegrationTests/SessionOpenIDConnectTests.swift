import Testing

/// OpenID Connect through the session against django-oauth-toolkit: it has everything.
@Suite(
    .enabled(if: ProviderEnvironment.djangoOAuthToolkit != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct DjangoOAuthToolkitSessionOpenIDConnectTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.djangoOAuthToolkit! }

    @Test func signInWithPromptLoginAndMaxAgeBringsAVerifiedAuthTime() async throws {
        try await SessionOpenIDConnectScenarios.signInWithPromptAndMaxAge(environment)
    }

    @Test func signOutEndsTheProviderSessionSoItsCookieNoLongerSignsIn() async throws {
        try await SessionOpenIDConnectScenarios.signOutEndsTheProviderSession(environment)
    }

    @Test(.enabled(if: ProviderEnvironment.djangoOAuthToolkit?.deviceClientID != nil))
    func deviceSignInApprovedByAScriptedBrowser() async throws {
        try await SessionOpenIDConnectScenarios.deviceSignInApprovedByAScriptedBrowser(environment)
    }

    @Test(.enabled(if: ProviderEnvironment.djangoOAuthToolkit?.deviceClientID != nil))
    func walkthroughDeviceModeIsApprovedByAScriptedBrowser() async throws {
        try await SessionOpenIDConnectScenarios.walkthroughDeviceMode(environment)
    }
}

/// OpenID Connect through the session against oidc-provider-mock (no device grant there).
@Suite(
    .enabled(if: ProviderEnvironment.oidcProviderMock != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct OIDCProviderMockSessionOpenIDConnectTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.oidcProviderMock! }

    @Test func signInWithPromptLoginAndMaxAgeBringsAVerifiedAuthTime() async throws {
        try await SessionOpenIDConnectScenarios.signInWithPromptAndMaxAge(environment)
    }

    @Test func signOutEndsTheProviderSession() async throws {
        try await SessionOpenIDConnectScenarios.signOutEndsTheProviderSession(environment)
    }
}
