import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// `offline_access` with `prompt=consent` (OpenID Connect Core §11), against a simulated provider
/// that ignores an offline-access request without consent, as the section requires of it.
@Suite("offline_access and prompt=consent")
struct SessionOfflineAccessTests {
    private static let strict = SimulatedProviderConfiguration(
        refreshTokensRequireOfflineAccess: true, ignoresOfflineAccessWithoutConsent: true)

    @Test("Core §11: a sign-in asking for offline_access sends prompt=consent and gets a refresh token")
    func consentByDefault() async throws {
        let env = try SimulatedSessionEnvironment(provider: Self.strict) {
            $0.authorizationOptions = try! AuthorizationRequestOptions(offlineAccess: .request)
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let record = try #require(env.provider.authorizationRecords.last)
        #expect(record.scopes.contains("offline_access"))
        #expect(record.prompt == ["consent"])
        #expect(env.store.record.session?.refreshToken != nil)
        try await env.finish()
    }

    @Test("Core §11: offline_access among the configured scopes also sends prompt=consent")
    func configuredScope() async throws {
        let env = try SimulatedSessionEnvironment(provider: Self.strict) { $0.provider.scopes.append("offline_access") }
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        #expect(env.provider.authorizationRecords.last?.prompt == ["consent"])
        #expect(env.store.record.session?.refreshToken != nil)
        try await env.finish()
    }

    @Test("Core §11: without prompt=consent the strict provider ignores offline_access and issues no refresh token")
    func withoutConsent() async throws {
        let env = try SimulatedSessionEnvironment(provider: Self.strict) {
            $0.authorizationOptions = try! AuthorizationRequestOptions(offlineAccess: .requestWithoutConsent)
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let record = try #require(env.provider.authorizationRecords.last)
        #expect(record.scopes.contains("offline_access"))
        #expect(record.prompt.isEmpty)
        #expect(env.store.record.session?.refreshToken == nil)
        try await env.finish()
    }

    @Test("a sign-in without offline_access sends no prompt")
    func noOfflineAccess() async throws {
        let env = try SimulatedSessionEnvironment(provider: Self.strict)
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        #expect(env.provider.authorizationRecords.last?.prompt.isEmpty == true)
        #expect(env.store.record.session?.refreshToken == nil)
        try await env.finish()
    }
}
