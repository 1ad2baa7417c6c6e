import Foundation
import Testing

@testable import SessionKit

@Suite("Anonymous bootstrap wire")
struct AnonymousBootstrapWireTests {
    static let issuer = URL(string: "https://api.1pass.dev")!
    static let sdk = AnonymousBootstrapProfile.onePass(issuer: issuer)

    private static func body(_ request: HTTPRequest) throws -> [String: String] {
        let data = try #require(request.body)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: String])
    }

    private static func decode(_ json: String, profile: AnonymousBootstrapProfile = sdk) throws(AnonymousBootstrapError)
        -> AnonymousBootstrapResponse
    {
        try AnonymousBootstrapResponse(decoding: Data(json.utf8), profile: profile)
    }

    // MARK: Profile

    @Test func theOnePassProfileCarriesTheSDKsContract() throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "app", redirectURI: URL(string: "app://callback")!)
        let profile = try #require(configuration.anonymousBootstrap)
        #expect(profile.endpoint.absoluteString == "https://api.1pass.dev/api/v1/auth/anonymous_bootstrap")
        #expect(profile.deviceIDField == "device_id")
        #expect(profile.platformField == "device_platform")
        #expect(profile.deviceSecretField == "device_secret")
        #expect(profile.deviceNameField == "device_name")
        #expect(["ios", "macos"].contains(profile.platform))
    }

    @Test func aDiscoveredOrExplicitProviderHasNoGuestBootstrapUnlessGivenOne() throws {
        let configuration = try ProviderConfiguration(
            issuer: "https://id.example", clientID: "app", redirectURI: URL(string: "app://callback")!,
            authorizationEndpoint: URL(string: "https://id.example/authorize")!, tokenEndpoint: URL(string: "https://id.example/token")!,
            jwksURI: URL(string: "https://id.example/jwks")!)
        #expect(configuration.anonymousBootstrap == nil)
    }

    // MARK: Requests

    @Test func theSDKRequestIsJSONWithTheSecretAndNameOnlyWhenKnown() throws {
        let first = ProviderClient.anonymousBootstrapRequest(AnonymousBootstrapRequest(deviceID: "dev-1"), profile: Self.sdk)
        #expect(first.method == "POST")
        #expect(first.url == Self.sdk.endpoint)
        #expect(first.header("Content-Type") == "application/json")
        #expect(first.header("Authorization") == nil)
        #expect(try Self.body(first) == ["device_id": "dev-1", "device_platform": Self.sdk.platform])
        let later = ProviderClient.anonymousBootstrapRequest(
            AnonymousBootstrapRequest(deviceID: "dev-1", deviceSecret: Secret("S-1"), deviceName: "iPad"), profile: Self.sdk)
        #expect(
            try Self.body(later) == [
                "device_id": "dev-1", "device_platform": Self.sdk.platform, "device_secret": "S-1", "device_name": "iPad",
            ])
    }

    @Test func theGuidesShapeUsesItsOwnPathAndFieldNames() throws {
        var profile = AnonymousBootstrapProfile.deviceRegistration(issuer: URL(string: "https://api.1pass.dev/")!)
        profile.platform = "ios"
        #expect(profile.endpoint.absoluteString == "https://api.1pass.dev/api/v1/devices")
        let request = ProviderClient.anonymousBootstrapRequest(
            AnonymousBootstrapRequest(deviceID: "dev-1", deviceSecret: Secret("S-1"), deviceName: "ignored"), profile: profile)
        #expect(try Self.body(request) == ["device_uuid": "dev-1", "platform": "ios", "device_secret": "S-1"])
    }

    // MARK: Answers

    @Test func aFullAnswerDecodes() throws {
        let answer = try Self.decode(
            #"{"access_token":"K","token_type":"bearer","expires_in":900,"device_secret":"S","user":{"id":42,"anonymous":true,"nickname":"Guest"}}"#
        )
        #expect(answer.accessToken == Secret("K"))
        #expect(answer.expiresIn == 900)
        #expect(answer.deviceSecret == Secret("S"))
        #expect(answer.user == .init(id: "42", isAnonymous: true, nickname: "Guest"))
    }

    @Test func optionalMembersMayBeAbsentOrNull() throws {
        let answer = try Self.decode(
            #"{"access_token":"K","token_type":"Bearer","expires_in":null,"device_secret":null,"user":{"id":"u-1","anonymous":false}}"#)
        #expect(answer.expiresIn == nil)
        #expect(answer.deviceSecret == nil)
        #expect(answer.user == .init(id: "u-1", isAnonymous: false))
    }

    @Test(arguments: [
        (#"[]"#, "not a JSON object"),
        (#"{"token_type":"Bearer","user":{"id":1,"anonymous":true}}"#, "access_token"),
        (#"{"access_token":"","token_type":"Bearer","user":{"id":1,"anonymous":true}}"#, "access_token"),
        (#"{"access_token":"K","token_type":"mac","user":{"id":1,"anonymous":true}}"#, "not Bearer"),
        (#"{"access_token":"K","token_type":"Bearer","expires_in":-1,"user":{"id":1,"anonymous":true}}"#, "expires_in"),
        (#"{"access_token":"K","token_type":"Bearer","expires_in":"60","user":{"id":1,"anonymous":true}}"#, "expires_in"),
        (#"{"access_token":"K","token_type":"Bearer","device_secret":"","user":{"id":1,"anonymous":true}}"#, "device_secret"),
        (#"{"access_token":"K","token_type":"Bearer"}"#, "user is missing"),
        (#"{"access_token":"K","token_type":"Bearer","user":{"id":true,"anonymous":true}}"#, "user.id"),
        (#"{"access_token":"K","token_type":"Bearer","user":{"id":1,"anonymous":1}}"#, "user.anonymous"),
        (#"{"access_token":"K","token_type":"Bearer","user":{"id":1,"anonymous":true,"nickname":5}}"#, "nickname"),
    ])
    func malformedAnswersNameTheMemberNeverAValue(json: String, member: String) {
        do {
            _ = try Self.decode(json)
            Issue.record("decoded a malformed answer")
        } catch {
            guard case .malformedResponse(let detail) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(detail.contains(member))
            #expect(!detail.contains("\"K\""))
        }
    }

    @Test func answersAreClassifiedIntoTypedErrors() {
        func classify(_ status: Int, _ body: String, headers: [String: String] = [:]) -> ProviderClient.AnonymousBootstrapAnswer {
            ProviderClient.classifyAnonymousBootstrap(
                HTTPResponse(status: status, headers: headers, body: Data(body.utf8)), profile: Self.sdk)
        }
        #expect(classify(401, #"{"error":"invalid_device_secret"}"#) == .invalidDeviceSecret)
        #expect(classify(401, #"{"error":"invalid_client"}"#) == .failed(.rejected(status: 401, error: "invalid_client")))
        #expect(classify(400, "not json") == .failed(.rejected(status: 400, error: nil)))
        #expect(classify(400, #"{"error":"has spaces and the secret S-1"}"#) == .failed(.rejected(status: 400, error: nil)))
        #expect(classify(503, "", headers: ["Retry-After": "12"]) == .failed(.unavailable(status: 503, retryAfter: .seconds(12))))
        #expect(classify(429, "") == .failed(.unavailable(status: 429, retryAfter: nil)))
        #expect(classify(200, "{}") == .failed(.malformedResponse("access_token is missing or not a non-empty string")))
    }

    @Test func theAlternativeProfilesAnswerFieldNamesAreHonoured() throws {
        var profile = Self.sdk
        profile.accessTokenField = "device_key"
        profile.userField = "account"
        let answer = try Self.decode(#"{"device_key":"K","token_type":"Bearer","account":{"id":3,"anonymous":true}}"#, profile: profile)
        #expect(answer.accessToken == Secret("K"))
        #expect(answer.user.id == "3")
    }

    @Test func descriptionsNeverShowTheKeyOrTheSecret() throws {
        let answer = try Self.decode(
            #"{"access_token":"KEY-VALUE","token_type":"Bearer","device_secret":"SECRET-VALUE","user":{"id":1,"anonymous":true}}"#)
        var dumped = ""
        dump(answer, to: &dumped)
        for text in [String(describing: answer), String(reflecting: answer), dumped] {
            #expect(!text.contains("KEY-VALUE"))
            #expect(!text.contains("SECRET-VALUE"))
        }
    }
}
