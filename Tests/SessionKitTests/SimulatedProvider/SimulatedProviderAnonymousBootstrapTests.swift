import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("Simulated provider: anonymous bootstrap")
struct SimulatedProviderAnonymousBootstrapTests {
    private static func post(_ fixture: ProviderFixture, _ json: String) async throws -> (Int, [String: Any]) {
        let response = try await fixture.provider.send(
            HTTPRequest(
                method: "POST", url: fixture.url(.anonymousBootstrap), headers: [("Content-Type", "application/json")],
                body: Data(json.utf8)))
        let object = try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
        return (response.status, object)
    }

    @Test func theSecretComesOnceAndIsThenPresented() async throws {
        let fixture = try ProviderFixture()
        let (status, first) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"ios"}"#)
        #expect(status == 200)
        let secret = try #require(first["device_secret"] as? String)
        let user = try #require(first["user"] as? [String: Any])
        #expect(user["anonymous"] as? Bool == true)
        #expect(first["token_type"] as? String == "Bearer")
        let (again, second) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"ios","device_secret":"\#(secret)"}"#)
        #expect(again == 200)
        #expect(second["device_secret"] == nil)
        #expect((second["user"] as? [String: Any])?["id"] as? Int == user["id"] as? Int)
        #expect(fixture.provider.isAccessTokenActive(try #require(second["access_token"] as? String)))
    }

    @Test func aWrongSecretOrAForgottenDeviceIsRefused() async throws {
        let fixture = try ProviderFixture()
        let (_, first) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"macos"}"#)
        let secret = try #require(first["device_secret"] as? String)
        let (wrong, body) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"macos","device_secret":"nope"}"#)
        #expect(wrong == 401)
        #expect(body["error"] as? String == "invalid_device_secret")
        #expect(fixture.provider.forgetGuestDevice(deviceID: "d-1"))
        #expect(!fixture.provider.forgetGuestDevice(deviceID: "d-1"))
        let (forgotten, _) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"macos","device_secret":"\#(secret)"}"#)
        #expect(forgotten == 401)
        #expect(!fixture.provider.isAccessTokenActive(try #require(first["access_token"] as? String)))
    }

    @Test func bootstrappingAKnownDeviceWithoutItsSecretStartsANewGuest() async throws {
        let fixture = try ProviderFixture()
        _ = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"ios"}"#)
        let before = fixture.provider.guestUserID(deviceID: "d-1")
        let (status, body) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"ios"}"#)
        #expect(status == 200)
        #expect(body["device_secret"] is String)
        #expect(fixture.provider.guestUserID(deviceID: "d-1") != before)
    }

    @Test(arguments: [
        #"{"device_platform":"ios"}"#, #"{"device_id":"","device_platform":"ios"}"#, #"{"device_id":"d","device_platform":"android"}"#,
        #"{"device_id":"d","device_platform":"ios","device_secret":5}"#, "not json",
    ])
    func badRequestsAreRefused(json: String) async throws {
        let fixture = try ProviderFixture()
        let (status, body) = try await Self.post(fixture, json)
        #expect(status == 400)
        #expect(body["error"] as? String == "invalid_request")
        #expect(fixture.provider.guestDeviceCount == 0)
    }

    @Test func theEndpointIsCountedLoggedAndScriptable() async throws {
        let fixture = try ProviderFixture()
        fixture.provider.script(.serverError(status: 503), on: .anonymousBootstrap)
        let (status, _) = try await Self.post(fixture, #"{"device_id":"d-1","device_platform":"ios"}"#)
        #expect(status == 503)
        #expect(fixture.provider.requestCount(for: .anonymousBootstrap) == 1)
        #expect(
            fixture.provider.requestLog.last?.description
                == "POST /api/v1/auth/anonymous_bootstrap → 503 server_error [fault: serverError(503)]")
    }
}
