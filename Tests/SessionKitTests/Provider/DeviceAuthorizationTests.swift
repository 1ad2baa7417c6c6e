import Foundation
import Testing

@testable import SessionKit

/// The device authorization request and response (RFC 8628 §3.1–§3.4) on the wire.
@Suite struct DeviceAuthorizationTests {
    private static let body = """
        {"device_code":"GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS","user_code":"WDJB-MJHT",
         "verification_uri":"https://example.com/device","verification_uri_complete":"https://example.com/device?user_code=WDJB-MJHT",
         "expires_in":1800,"interval":5}
        """

    private func client(_ transport: RecordingTransport, device: Bool = true) throws -> ProviderClient {
        let base = try ProviderTestKeys.configuration()
        let configuration = try ProviderConfiguration(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI, scopes: base.scopes,
            authorizationEndpoint: base.authorizationEndpoint, tokenEndpoint: base.tokenEndpoint, jwksURI: base.jwksURI,
            deviceAuthorizationEndpoint: device ? URL(string: "https://id.example.com/oauth/device") : nil)
        return ProviderClient(configuration: configuration, transport: transport, now: { Date(timeIntervalSince1970: 0) })
    }

    @Test func theSpecificationsExampleDecodes() throws {
        let decoded = try DeviceAuthorization(decoding: Data(Self.body.utf8))
        #expect(decoded.deviceCode.value == "GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS")
        #expect(decoded.userCode == "WDJB-MJHT")
        #expect(decoded.verificationURI.absoluteString == "https://example.com/device")
        #expect(decoded.verificationURIComplete?.absoluteString == "https://example.com/device?user_code=WDJB-MJHT")
        #expect(decoded.expiresIn == 1800)
        #expect(decoded.interval == 5)
    }

    @Test(arguments: [
        #"{"user_code":"u","verification_uri":"https://x.example/d","expires_in":300}"#,
        #"{"device_code":"d","verification_uri":"https://x.example/d","expires_in":300}"#,
        #"{"device_code":"d","user_code":"u","expires_in":300}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d"}"#,
        #"{"device_code":"","user_code":"u","verification_uri":"https://x.example/d","expires_in":300}"#,
        #"{"device_code":"d","user_code":"","verification_uri":"https://x.example/d","expires_in":300}"#,
        #"{"device_code":7,"user_code":"u","verification_uri":"https://x.example/d","expires_in":300}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"javascript:alert(1)","expires_in":300}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"/device","expires_in":300}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d","verification_uri_complete":"file:///etc","expires_in":300}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d","expires_in":"300"}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d","expires_in":0}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d","expires_in":300,"interval":-1}"#,
        #"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d","expires_in":300,"interval":"5"}"#,
        "[]", "", "<html>",
    ])
    func badResponsesAreRejected(_ body: String) {
        #expect(throws: ProviderError.self) { try DeviceAuthorization(decoding: Data(body.utf8)) }
    }

    @Test func decodingErrorsQuoteNothingFromTheBody() {
        let body = #"{"device_code":"secret-device-code-value","user_code":"u","verification_uri":"x","expires_in":300}"#
        do {
            _ = try DeviceAuthorization(decoding: Data(body.utf8))
            Issue.record("accepted a relative verification_uri")
        } catch {
            #expect(!"\(error)".contains("secret-device-code-value"))
        }
    }

    @Test func theRequestPostsClientIDAndScope() async throws {
        let transport = RecordingTransport(always: .json(200, Self.body))
        let authorization = try #require(try await client(transport).requestDeviceAuthorization())
        #expect(authorization.userCode == "WDJB-MJHT")
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://id.example.com/oauth/device")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(request.header("accept") == "application/json")
        #expect(request.bodyText == "client_id=app-client&scope=openid%20profile%3Abasic%20email")
        _ = try await client(transport).requestDeviceAuthorization(scopes: ["openid", "offline_access"])
        #expect(transport.requests.last?.bodyText == "client_id=app-client&scope=openid%20offline_access")
    }

    @Test func noEndpointMeansNoRequest() async throws {
        let transport = RecordingTransport(always: .json(200, Self.body))
        #expect(try await client(transport, device: false).requestDeviceAuthorization() == nil)
        #expect(transport.requests.isEmpty)
    }

    @Test func anErrorAnswerIsAProviderError() async throws {
        let transport = RecordingTransport(always: .json(400, #"{"error":"invalid_client"}"#))
        let provider = try client(transport)
        await #expect(throws: ProviderError.self) { try await provider.requestDeviceAuthorization() }
        do throws(ProviderError) {
            _ = try await provider.requestDeviceAuthorization()
        } catch {
            #expect(error.oauthError == "invalid_client")
            #expect(!error.isTransient)
        }
    }

    @Test func pollingPostsTheDeviceCodeGrant() async throws {
        let transport = RecordingTransport(always: .json(400, #"{"error":"authorization_pending"}"#))
        let authorization = try DeviceAuthorization(decoding: Data(Self.body.utf8))
        let answer: DevicePollAnswer
        let provider = try client(transport)
        do throws(ProviderError) {
            answer = .tokens(try await provider.pollDeviceToken(authorization))
        } catch {
            answer = DevicePollAnswer(.failure(error))
        }
        #expect(answer == .authorizationPending)
        let request = try #require(transport.requests.first)
        #expect(request.url.absoluteString == "https://id.example.com/oauth/token")
        #expect(
            request.bodyText
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code"
                + "&device_code=GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS&client_id=app-client")

        transport.respond { _ in .success(.json(200, #"{"access_token":"AT","token_type":"Bearer","id_token":"h.p.s"}"#)) }
        let tokens = try await provider.pollDeviceToken(authorization)
        #expect(tokens.accessToken.value == "AT")
        #expect(tokens.refreshToken == nil)
    }

    @Test func renderingsShowNoDeviceCode() throws {
        let decoded = try DeviceAuthorization(decoding: Data(Self.body.utf8))
        var dumped = ""
        dump(decoded, to: &dumped)
        for text in ["\(decoded)", String(reflecting: decoded), dumped] {
            #expect(!text.contains("GmRhmhcxhwAzkoEqiMEg"))
            #expect(text.contains("WDJB-MJHT"))
        }
    }
}
