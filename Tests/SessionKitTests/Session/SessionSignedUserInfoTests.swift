import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A signed UserInfo response (`application/jwt`, OpenID Connect Core §5.3.2) through the session:
/// verified with the provider's keys like an id_token before any claim is used.
@Suite("Signed UserInfo")
struct SessionSignedUserInfoTests {
    @Test("Core §5.3.2: a signed UserInfo answer is verified and read")
    func signedAnswer() async throws {
        let env = try SimulatedSessionEnvironment()
        env.provider.signUserInfo(.valid)
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let info = try #require(try await env.session.fetchUserInfo())
        #expect(info.isSigned)
        #expect(info.subject == "alice")
        try await env.finish()
    }

    @Test(
        "Core §5.3.2: a signed UserInfo answer with a bad signature, another iss or another aud is refused",
        arguments: [
            (SimulatedUserInfoSigning.badSignature, UserInfoError.badSignature),
            (.wrongIssuer, .issuerMismatch), (.wrongAudience, .audienceMismatch),
        ])
    func refused(signing: SimulatedUserInfoSigning, error: UserInfoError) async throws {
        let env = try SimulatedSessionEnvironment()
        env.provider.signUserInfo(signing)
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        await #expect(throws: SessionError.userInfoRejected(error)) { try await env.session.fetchUserInfo() }
        #expect(env.session.stage == .active, "a refused UserInfo answer does not end the session")
        try await env.finish()
    }

    @Test("a signed UserInfo answer under a key rotated after sign-in is verified after one key refetch")
    func rotatedKey() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        _ = try env.provider.rotateSigningKey(retainPreviousFor: .seconds(3600))
        env.provider.signUserInfo(.valid)
        let info = try #require(try await env.session.fetchUserInfo())
        #expect(info.isSigned)
        try await env.finish()
    }
}
