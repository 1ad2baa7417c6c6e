import Testing

/// Against django-oauth-toolkit started by `Scripts/providers/providers.sh start`.
@Suite(
    .enabled(if: ProviderEnvironment.djangoOAuthToolkit != nil, "run: eval \"$(Scripts/providers/providers.sh env)\""),
    .serialized, .timeLimit(.minutes(1)))
struct DjangoOAuthToolkitTests {
    private var environment: ProviderEnvironment { ProviderEnvironment.djangoOAuthToolkit! }

    @Test func signInVerifiesAndStoresTheSession() async throws {
        try await Scenarios.signInVerifiesAndStores(environment)
    }

    @Test func signInThroughTheLoopbackPresenterWithAScriptedBrowser() async throws {
        try await Scenarios.signInThroughTheLoopbackPresenter(environment)
    }

    @Test func signOutThroughTheLoopbackPresenterEndsTheProviderSession() async throws {
        try await Scenarios.signOutThroughTheLoopbackPresenterEndsTheProviderSession(environment)
    }

    @Test func refreshRotatesAndAReplayedRefreshTokenEndsTheChain() async throws {
        try await Scenarios.refreshRotatesAsTheProviderDoes(environment)
    }

    @Test func fiftyConcurrentCallersAtExpiryShareOneRefresh() async throws {
        try await Scenarios.concurrentCallersAtExpiryShareOneRefresh(environment)
    }

    @Test func restoreInANewSessionUsesTheStoredRefreshToken() async throws {
        try await Scenarios.restoreInANewSessionUsesTheStoredRefreshToken(environment)
    }

    @Test func aRefreshWithoutAnIDTokenKeepsTheSession() async throws {
        try await Scenarios.refreshWithoutAnIDTokenKeepsTheSession(environment)
    }

    @Test func aRevokedRefreshTokenEndsTheSessionOnce() async throws {
        try await Scenarios.aRevokedRefreshTokenEndsTheSessionOnce(environment)
    }

    @Test func signOutIsConfirmedByRevocationAtTheServer() async throws {
        try await Scenarios.signOutGoesToTheServerFirst(environment)
    }

    @Test func signingKeyRotationAtTheProviderIsFollowed() async throws {
        try await Scenarios.signingKeyRotationIsFollowed(environment)
    }

    @Test func providerDownFollowsTheRetryPolicy() async throws {
        try await Scenarios.providerDownFollowsTheRetryPolicy(environment)
    }

    @Test func providerHangingEndsAtTheDeadline() async throws {
        try await Scenarios.providerHangingHitsTheDeadline(environment)
    }
}
