import Testing

/// OpenID Connect through the session against django-oauth-toolkit, which has all of it.
///
/// Part of the serialized django-oauth-toolkit suite: the provider is shared, and its other tests
/// rotate the signing key and load it from several processes at once.
extension DjangoOAuthToolkitTests {
    @Test func signInWithPromptLoginAndMaxAgeBringsAVerifiedAuthTime() async throws {
        try await SessionOpenIDConnectScenarios.signInWithPromptAndMaxAge(try #require(ProviderEnvironment.djangoOAuthToolkit))
    }

    @Test func signOutEndsTheProviderSessionSoItsCookieNoLongerSignsIn() async throws {
        try await SessionOpenIDConnectScenarios.signOutEndsTheProviderSession(try #require(ProviderEnvironment.djangoOAuthToolkit))
    }

    @Test(.enabled(if: ProviderEnvironment.djangoOAuthToolkit?.deviceClientID != nil))
    func deviceSignInThroughTheSessionApprovedByAScriptedBrowser() async throws {
        try await SessionOpenIDConnectScenarios.deviceSignInApprovedByAScriptedBrowser(try #require(ProviderEnvironment.djangoOAuthToolkit))
    }

    @Test(.enabled(if: ProviderEnvironment.djangoOAuthToolkit?.deviceClientID != nil))
    func walkthroughDeviceModeIsApprovedByAScriptedBrowser() async throws {
        try await SessionOpenIDConnectScenarios.walkthroughDeviceMode(try #require(ProviderEnvironment.djangoOAuthToolkit))
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
