import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@Suite("Simulated provider: device keys and app disconnect")
struct SimulatedProviderDeviceKeyTests {
    @Test func firstExchangeIssuesASecretLaterOnesDoNot() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let first = try await fixture.exchangeDeviceKey(
            accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"])
        #expect(first.status == 200)
        let firstBody = try ProviderFixture.json(first)
        let secret = try ProviderFixture.secret(firstBody, "device_secret")
        #expect(firstBody["device_key"] is String)
        #expect(firstBody["expires_in"] as? Int == 3600)

        let second = try await fixture.exchangeDeviceKey(
            accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios", "device_secret": secret.value])
        #expect(second.status == 200)
        #expect(try ProviderFixture.json(second)["device_secret"] == nil)
        #expect(fixture.provider.deviceOwner(deviceUUID: "dev-1") == "alice")
        #expect(fixture.provider.registeredDeviceCount == 1)
    }

    @Test func wrongSecretIsRejectedAndABootstrapReissuesOne() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let first = try ProviderFixture.json(
            try await fixture.exchangeDeviceKey(accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"]))
        let secret = try ProviderFixture.secret(first, "device_secret")

        let wrong = try await fixture.exchangeDeviceKey(
            accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios", "device_secret": "guess"])
        #expect(wrong.status == 401)
        #expect(ProviderFixture.errorCode(wrong) == "invalid_device_secret")

        let again = try ProviderFixture.json(
            try await fixture.exchangeDeviceKey(accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"]))
        let newSecret = try ProviderFixture.secret(again, "device_secret")
        #expect(newSecret != secret)
        let stale = try await fixture.exchangeDeviceKey(
            accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios", "device_secret": secret.value])
        #expect(ProviderFixture.errorCode(stale) == "invalid_device_secret")
    }

    @Test func invalidatedSecretIsRejected() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let first = try ProviderFixture.json(
            try await fixture.exchangeDeviceKey(accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"]))
        let secret = try ProviderFixture.secret(first, "device_secret")
        #expect(fixture.provider.invalidateDeviceSecret(deviceUUID: "dev-1"))
        #expect(!fixture.provider.invalidateDeviceSecret(deviceUUID: "unknown"))
        let response = try await fixture.exchangeDeviceKey(
            accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios", "device_secret": secret.value])
        #expect(ProviderFixture.errorCode(response) == "invalid_device_secret")
    }

    @Test func aDeviceOfAnotherUserIsAConflict() async throws {
        let fixture = try ProviderFixture()
        let alice = try await fixture.signIn(subject: "alice")
        let bob = try await fixture.signIn(subject: "bob")
        _ = try await fixture.exchangeDeviceKey(accessToken: alice.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"])
        let conflict = try await fixture.exchangeDeviceKey(
            accessToken: bob.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"])
        #expect(conflict.status == 409)
        #expect(ProviderFixture.errorCode(conflict) == "device_conflict")
        #expect(fixture.provider.deviceOwner(deviceUUID: "dev-1") == "alice")
    }

    @Test func exchangeNeedsALiveAccessTokenAndAWellFormedBody() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let missing = try await fixture.exchangeDeviceKey(accessToken: nil, body: ["device_uuid": "d", "platform": "ios"])
        #expect(missing.status == 401)
        #expect(missing.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let noPlatform = try await fixture.exchangeDeviceKey(accessToken: tokens.accessToken, body: ["device_uuid": "d"])
        #expect(noPlatform.status == 400)
        fixture.clock.advance(by: .seconds(3600))
        let expired = try await fixture.exchangeDeviceKey(
            accessToken: tokens.accessToken, body: ["device_uuid": "d", "platform": "ios"])
        #expect(expired.status == 401)
        #expect(ProviderFixture.errorCode(expired) == "invalid_token")
    }

    @Test func disconnectRevokesEveryGrantOfTheUserForTheClient() async throws {
        let fixture = try ProviderFixture()
        let first = try await fixture.signIn(subject: "alice")
        let second = try await fixture.signIn(subject: "alice")
        let bob = try await fixture.signIn(subject: "bob")
        let body = try ProviderFixture.json(
            try await fixture.exchangeDeviceKey(accessToken: first.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"]))
        let deviceKey = try ProviderFixture.secret(body, "device_key")

        let response = try await fixture.disconnect(deviceKey: deviceKey)
        #expect(response.status == 204)
        #expect(!fixture.provider.isRefreshTokenActive(first.refreshToken))
        #expect(!fixture.provider.isRefreshTokenActive(second.refreshToken))
        #expect(fixture.provider.isRefreshTokenActive(bob.refreshToken))
        #expect(fixture.provider.revokedChains.map(\.reason) == [.disconnect, .disconnect])

        let again = try await fixture.disconnect(deviceKey: deviceKey)
        #expect(again.status == 404)
        let otherClient = try await fixture.disconnect(deviceKey: deviceKey, clientID: "other-app")
        #expect(otherClient.status == 404)
    }

    @Test func disconnectNeedsALiveDeviceKey() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let withAccessToken = try await fixture.disconnect(deviceKey: tokens.accessToken)
        #expect(withAccessToken.status == 401)
        let body = try ProviderFixture.json(
            try await fixture.exchangeDeviceKey(accessToken: tokens.accessToken, body: ["device_uuid": "dev-1", "platform": "ios"]))
        let deviceKey = try ProviderFixture.secret(body, "device_key")
        fixture.clock.advance(by: .seconds(3600))
        #expect(try await fixture.disconnect(deviceKey: deviceKey).status == 401)
        #expect(fixture.provider.activeGrantCount == 1)
    }
}
