import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@Suite("Simulated provider: refresh rotation, reuse detection, revocation")
struct SimulatedProviderRefreshTests {
    @Test func refreshRotatesTheRefreshToken() async throws {
        let fixture = try ProviderFixture()
        let first = try await fixture.signIn()
        fixture.clock.advance(by: .seconds(600))
        let response = try await fixture.refresh(first.refreshToken)
        #expect(response.status == 200)
        let second = try ProviderFixture.tokens(response)
        #expect(second.refreshToken != first.refreshToken)
        #expect(!fixture.provider.isRefreshTokenActive(first.refreshToken))
        #expect(fixture.provider.isRefreshTokenActive(second.refreshToken))
        #expect(fixture.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(fixture.provider.requestCount(grantType: "authorization_code") == 1)
        #expect(fixture.provider.tokenRequestCount == 2)
    }

    @Test func refreshedIDTokenPassesTheRefreshChecks() async throws {
        let fixture = try ProviderFixture()
        let first = try await fixture.signIn()
        let keys = try await fixture.jwks()
        let previous = try fixture.validate(first.idToken, keys: keys).claims
        fixture.clock.advance(by: .seconds(3000))
        let second = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))
        let refreshed = try fixture.validateRefreshed(second.idToken, keys: keys, previous: previous)
        _ = try fixture.validate(second.idToken, keys: keys, nonce: nil, accessToken: second.accessToken)
        #expect(refreshed.claims.subject == previous.subject)
        #expect(refreshed.claims.nonce == nil)
        #expect(refreshed.claims.issuedAt == previous.issuedAt.addingTimeInterval(3000))
    }

    @Test func replayedRefreshTokenRevokesTheWholeChain() async throws {
        let fixture = try ProviderFixture()
        let first = try await fixture.signIn()
        let second = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))
        let third = try ProviderFixture.tokens(try await fixture.refresh(second.refreshToken))

        let replay = try await fixture.refresh(first.refreshToken)
        #expect(replay.status == 400)
        #expect(ProviderFixture.errorCode(replay) == "invalid_grant")
        #expect(!fixture.provider.isRefreshTokenActive(third.refreshToken))
        #expect(!fixture.provider.isAccessTokenActive(third.accessToken))
        #expect(
            fixture.provider.revokedChains == [
                SimulatedProviderRevokedChain(subject: "alice", clientID: "sim-client", reason: .refreshTokenReuse)
            ])
        let afterRevocation = try await fixture.refresh(third.refreshToken)
        #expect(ProviderFixture.errorCode(afterRevocation) == "invalid_grant")
        #expect(fixture.provider.activeGrantCount == 0)
    }

    @Test func otherChainsSurviveAReuseInOneChain() async throws {
        let fixture = try ProviderFixture()
        let alice = try await fixture.signIn(subject: "alice")
        let bob = try await fixture.signIn(subject: "bob")
        _ = try await fixture.refresh(alice.refreshToken)
        _ = try await fixture.refresh(alice.refreshToken)
        #expect(fixture.provider.isRefreshTokenActive(bob.refreshToken))
        #expect(fixture.provider.activeGrantCount == 1)
    }

    @Test func refreshWithoutRotationKeepsTheToken() async throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(rotatesRefreshTokens: false))
        let first = try await fixture.signIn()
        let object = try ProviderFixture.json(try await fixture.refresh(first.refreshToken))
        #expect(object["refresh_token"] == nil)
        #expect(object["id_token"] is String)
        #expect(fixture.provider.isRefreshTokenActive(first.refreshToken))
        #expect(try await fixture.refresh(first.refreshToken).status == 200)
    }

    @Test func refreshTokensExpireWhenALifetimeIsSet() async throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(refreshTokenLifetime: .seconds(86_400)))
        let first = try await fixture.signIn()
        fixture.clock.advance(by: .seconds(86_400))
        #expect(!fixture.provider.isRefreshTokenActive(first.refreshToken))
        #expect(ProviderFixture.errorCode(try await fixture.refresh(first.refreshToken)) == "invalid_grant")
    }

    @Test func revocationRevokesTheChain() async throws {
        let fixture = try ProviderFixture()
        let first = try await fixture.signIn()
        let second = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))
        let response = try await fixture.revoke(second.refreshToken)
        #expect(response.status == 200)
        #expect(!fixture.provider.isRefreshTokenActive(second.refreshToken))
        #expect(!fixture.provider.isAccessTokenActive(second.accessToken))
        #expect(fixture.provider.revokedChains.map(\.reason) == [.revocation])
        #expect(ProviderFixture.errorCode(try await fixture.refresh(second.refreshToken)) == "invalid_grant")
        // Revoking again, or revoking nonsense, is still 200 (RFC 7009 §2.2) and records nothing new.
        #expect(try await fixture.revoke(second.refreshToken).status == 200)
        #expect(try await fixture.revoke(Secret("never-issued")).status == 200)
        #expect(fixture.provider.revokedChains.count == 1)
    }

    @Test func revokingAnAccessTokenRevokesItsChain() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        #expect(try await fixture.revoke(tokens.accessToken).status == 200)
        #expect(!fixture.provider.isRefreshTokenActive(tokens.refreshToken))
    }

    @Test func revocationChecksTheClientAndTheEncoding() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let otherClient = try await fixture.revoke(tokens.refreshToken, clientID: "intruder")
        #expect(otherClient.status == 401)
        let json = try await fixture.provider.send(
            HTTPRequest(
                method: "POST", url: fixture.url(.revocation), headers: [("Content-Type", "application/json")],
                body: Data(#"{"token":"x"}"#.utf8)))
        #expect(json.status == 400)
        let repeated = try await fixture.post(
            .revocation, form: [("token", tokens.refreshToken.value), ("token", "x"), ("client_id", "sim-client")])
        #expect(ProviderFixture.errorCode(repeated) == "invalid_request")
        #expect(fixture.provider.isRefreshTokenActive(tokens.refreshToken))
    }

    @Test func administrativeRevocationEndsEveryGrantOfTheSubject() async throws {
        let fixture = try ProviderFixture()
        let one = try await fixture.signIn(subject: "alice")
        let two = try await fixture.signIn(subject: "alice")
        let bob = try await fixture.signIn(subject: "bob")
        fixture.provider.revokeAllGrants(of: "alice")
        #expect(!fixture.provider.isRefreshTokenActive(one.refreshToken))
        #expect(!fixture.provider.isRefreshTokenActive(two.refreshToken))
        #expect(fixture.provider.isRefreshTokenActive(bob.refreshToken))
        #expect(fixture.provider.revokedChains.map(\.reason) == [.administrative, .administrative])
    }

    @Test func tokenEndpointRejectsUnknownGrantsAndWrongEncoding() async throws {
        let fixture = try ProviderFixture()
        let unknown = try await fixture.post(.token, form: [("grant_type", "password"), ("client_id", "sim-client")])
        #expect(ProviderFixture.errorCode(unknown) == "unsupported_grant_type")
        let json = try await fixture.provider.send(
            HTTPRequest(method: "POST", url: fixture.url(.token), headers: [("Content-Type", "application/json")], body: Data("{}".utf8)))
        #expect(ProviderFixture.errorCode(json) == "invalid_request")
    }
}
