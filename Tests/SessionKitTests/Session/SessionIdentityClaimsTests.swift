import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// The verified claims on `SessionIdentity`: from the verified id_token only, replaced when a
/// refresh brings a new one, kept in the store so a restore has them; UserInfo with its `sub` check.
@Suite("Session identity claims")
struct SessionIdentityClaimsTests {
    static let alice = SimulatedProviderUser(
        subject: "alice",
        profile: ProfileClaims(
            name: "Alice Liddell", givenName: "Alice", familyName: "Liddell", preferredUsername: "alice", email: "alice@example.com",
            emailVerified: true, picture: "https://example.com/alice.png", locale: "en-GB",
            updatedAt: Date(timeIntervalSince1970: 1_700_000_000)),
        authenticationMethods: ["pwd", "otp"],
        additionalClaims: ["tenant": .string("wonderland"), "roles": .array([.string("reader"), .string("editor")])])

    @Test("the identity carries the standard, authentication and custom claims of the verified id_token")
    func claimsAfterSignIn() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.register(Self.alice)
        h.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await h.session.signIn()
        #expect(identity.source == .idToken)
        #expect(identity.claims.profile == Self.alice.profile)
        #expect(identity.claims.authenticationMethods == ["pwd", "otp"])
        #expect(try identity.claims.custom("tenant", as: String.self) == "wonderland")
        #expect(try identity.claims.custom("roles", as: [String].self) == ["reader", "editor"])
        #expect(try identity.claims.custom("absent", as: String.self) == nil)
        #expect(throws: ClaimError.typeMismatch(claim: "tenant")) { try identity.claims.custom("tenant", as: Int.self) }
        #expect(h.session.identity == identity)
        #expect(h.store.record.session?.claims == identity.claims)
    }

    @Test("a restore has the claims without asking the provider for them")
    func claimsAfterRestore() async throws {
        let h = try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(issuesIDTokenOnRefresh: false)) {
            $0.requireIDTokenOnRefresh = false
        }
        h.provider.register(Self.alice)
        try await h.signIn()
        let relaunched = await h.relaunch()
        try await relaunched.restore()
        let restored = try #require(relaunched.identity)
        #expect(restored.claims.profile.email == "alice@example.com")
        #expect(try restored.claims.custom("tenant", as: String.self) == "wonderland")
    }

    @Test("a refresh with a new id_token replaces the claims; one without keeps them")
    func claimsAfterRefresh() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.register(Self.alice)
        try await h.signIn()
        var renamed = Self.alice
        renamed.profile.name = "Alice Hargreaves"
        renamed.additionalClaims = ["tenant": .string("looking-glass")]
        h.provider.register(renamed)
        try await h.session.refresh()
        let refreshed = try #require(h.session.identity)
        #expect(refreshed.claims.profile.name == "Alice Hargreaves")
        #expect(try refreshed.claims.custom("tenant", as: String.self) == "looking-glass")
        #expect(try refreshed.claims.custom("roles", as: [String].self) == nil)
        #expect(h.store.record.session?.claims?.profile.name == "Alice Hargreaves")
    }

    @Test("records written before claims were kept still restore, with empty claims")
    func olderRecords() throws {
        let old = #"{"refreshToken":"r","issuer":"https://sim.1pass.test","subject":"alice","audience":["sim-client"],"rotation":0}"#
        let stored = try JSONDecoder().decode(StoredSession.self, from: Data(old.utf8))
        #expect(stored.claims == nil)
        #expect(stored.refreshToken == Secret("r"))
        let encoded = try JSONEncoder().encode(
            StoredSession(
                refreshToken: nil, issuer: "i", subject: "s", audience: ["a"], claims: IdentityClaims(authenticationMethods: ["pwd"])))
        let decoded = try JSONDecoder().decode(StoredSession.self, from: encoded)
        #expect(decoded.refreshToken == nil)
        #expect(decoded.claims?.authenticationMethods == ["pwd"])
    }

    @Test("UserInfo for the signed-in person: accepted when its sub matches, returned, never merged")
    func userInfo() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.register(Self.alice)
        try await h.signIn()
        let before = h.session.identity
        let info = try #require(try await h.session.fetchUserInfo())
        #expect(info.subject == "alice")
        #expect(info.profile.email == "alice@example.com")
        #expect(try info.custom("tenant", as: String.self) == "wonderland")
        #expect(h.session.identity == before)
    }

    @Test("a UserInfo answer about someone else is a typed error; the identity is untouched")
    func userInfoSubjectMismatch() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.register(Self.alice)
        try await h.signIn()
        let before = h.session.identity
        h.provider.answerUserInfo(asSubject: "mallory")
        let error = await SessionCallResult { () async throws(SessionError) in try await h.session.fetchUserInfo() }.error
        #expect(error == .userInfoRejected(.subjectMismatch))
        #expect(error?.identifier == "userinfo_rejected.sub_mismatch")
        #expect(error?.category == .refused)
        #expect(h.session.identity == before)
        #expect(h.session.stage == .active)
    }

    @Test("UserInfo refreshes a due access token first, and needs a session")
    func userInfoNeedsAValidToken() async throws {
        let h = try SimulatedSessionEnvironment()
        await #expect(throws: SessionError.notSignedIn) { try await h.session.fetchUserInfo() }
        try await h.signIn()
        h.clock.advance(by: .seconds(3590))
        _ = try #require(try await h.session.fetchUserInfo())
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test("a provider without a UserInfo endpoint gives nil")
    func noUserInfoEndpoint() async throws {
        let h = try SimulatedSessionEnvironment { $0.provider.userInfoEndpoint = nil }
        try await h.signIn()
        #expect(try await h.session.fetchUserInfo() == nil)
        #expect(h.provider.requestCount(for: .userInfo) == 0)
    }
}
