import Testing

/// Against oidc-provider-mock started by `Scripts/providers/providers.sh start`.
@Suite(
    .enabled(if: ProviderEnvironment.oidcProviderMock != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct OIDCProviderMockTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.oidcProviderMock! }

    @Test func signInVerifiesAndStoresTheSession() async throws {
        try await Scenarios.signInVerifiesAndStores(environment)
    }

    @Test func signInThroughTheLoopbackPresenterWithAScriptedBrowser() async throws {
        try await Scenarios.signInThroughTheLoopbackPresenter(environment)
    }

    @Test func refreshKeepsTheRefreshTokenAndDropsTheOldAccessToken() async throws {
        try await Scenarios.refreshRotatesAsTheProviderDoes(environment)
    }

    @Test func fiftyConcurrentCallersAtExpiryShareOneRefresh() async throws {
        try await Scenarios.concurrentCallersAtExpiryShareOneRefresh(environment)
    }

    @Test func restoreInANewSessionUsesTheStoredRefreshToken() async throws {
        try await Scenarios.restoreInANewSessionUsesTheStoredRefreshToken(environment)
    }

    @Test func signOutWithoutARevocationEndpointWipesLocallyAndSaysSo() async throws {
        try await Scenarios.signOutGoesToTheServerFirst(environment)
    }

    @Test func providerDownFollowsTheRetryPolicy() async throws {
        try await Scenarios.providerDownFollowsTheRetryPolicy(environment)
    }

    @Test func providerHangingEndsAtTheDeadline() async throws {
        try await Scenarios.providerHangingHitsTheDeadline(environment)
    }
}
