import Foundation
import Testing

@testable import SessionKit

@Suite struct ProviderClientTests {
    private static let now = Date(timeIntervalSince1970: 1_767_225_600)
    private static let tokenBody =
        #"{"access_token":"AT-1","token_type":"Bearer","expires_in":600,"refresh_token":"RT-2","id_token":"h.p.s"}"#

    private func client(
        _ transport: RecordingTransport, revocation: Bool = true, disconnect: Bool = true
    ) throws -> ProviderClient {
        ProviderClient(
            configuration: try ProviderTestKeys.configuration(revocation: revocation, disconnect: disconnect), transport: transport,
            now: { Self.now })
    }

    private func fields(_ request: HTTPRequest?) -> [String: String] {
        FormEncoding.decode(request?.bodyText ?? "")
    }

    // MARK: Authorization URL

    @Test func theAuthorizationURLCarriesEveryParameterPercentEncoded() throws {
        let client = try client(RecordingTransport(always: .json(500, "{}")))
        let url = client.authorizationURL(
            codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", state: "st+a/te=1 ü", nonce: "n~o.n-c_e")
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.scheme == "https" && components.host == "id.example.com" && components.path == "/oauth/authorize")
        #expect(
            components.percentEncodedQuery
                == "response_type=code&client_id=app-client&redirect_uri=com.example.app%3A%2Foauth%2Fcallback"
                + "&scope=openid%20profile%3Abasic%20email&state=st%2Ba%2Fte%3D1%20%C3%BC&nonce=n~o.n-c_e"
                + "&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256")
        let items = Dictionary(uniqueKeysWithValues: (components.queryItems ?? []).map { ($0.name, $0.value ?? "") })
        #expect(
            items == [
                "response_type": "code", "client_id": "app-client", "redirect_uri": "com.example.app:/oauth/callback",
                "scope": "openid profile:basic email", "state": "st+a/te=1 ü", "nonce": "n~o.n-c_e",
                "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "code_challenge_method": "S256",
            ])
    }

    @Test func anExistingQueryOnTheAuthorizationEndpointIsKept() throws {
        let base = try ProviderTestKeys.configuration()
        let configuration = try ProviderConfiguration(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI,
            authorizationEndpoint: URL(string: "https://id.example.com/authorize?prompt=login")!, tokenEndpoint: base.tokenEndpoint,
            jwksURI: base.jwksURI)
        let client = ProviderClient(
            configuration: configuration, transport: RecordingTransport(always: .json(500, "{}")), now: { Self.now })
        let query = try #require(
            URLComponents(url: client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n"), resolvingAgainstBaseURL: false)?
                .percentEncodedQuery)
        #expect(query.hasPrefix("prompt=login&response_type=code&client_id=app-client&"))
        #expect(query.hasSuffix("&scope=openid&state=s&nonce=n&code_challenge=c&code_challenge_method=S256"))
    }

    @Test func buildingTheAuthorizationURLSendsNothing() throws {
        let transport = RecordingTransport(always: .json(500, "{}"))
        _ = try client(transport).authorizationURL(codeChallenge: "c", state: "s", nonce: "n")
        #expect(transport.requests.isEmpty)
    }

    // MARK: Token endpoint

    @Test func codeExchangePostsExactlyTheGrantFields() async throws {
        let transport = RecordingTransport(always: .json(200, Self.tokenBody))
        let response = try await client(transport).exchangeCode(
            Secret("code+/=%&x"), codeVerifier: Secret("verifier~._-0123456789abcdefghijklmnopqrstuvw"))
        #expect(response.accessToken.value == "AT-1" && response.refreshToken?.value == "RT-2" && response.expiresIn == 600)
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://id.example.com/oauth/token")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(request.header("accept") == "application/json")
        #expect(request.header("authorization") == nil, "a public client sends no credentials")
        #expect(
            request.bodyText
                == "grant_type=authorization_code&code=code%2B%2F%3D%25%26x&redirect_uri=com.example.app%3A%2Foauth%2Fcallback"
                + "&client_id=app-client&code_verifier=verifier~._-0123456789abcdefghijklmnopqrstuvw")
        #expect(
            fields(request) == [
                "grant_type": "authorization_code", "code": "code+/=%&x", "redirect_uri": "com.example.app:/oauth/callback",
                "client_id": "app-client", "code_verifier": "verifier~._-0123456789abcdefghijklmnopqrstuvw",
            ])
    }

    @Test func refreshPostsExactlyTheRefreshFields() async throws {
        let transport = RecordingTransport(always: .json(200, Self.tokenBody))
        let refreshToken = "Zm9v+YmFy/YmF6==" + " ü"
        _ = try await client(transport).refresh(Secret(refreshToken))
        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://id.example.com/oauth/token")
        #expect(request.header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(request.bodyText == "grant_type=refresh_token&refresh_token=Zm9v%2BYmFy%2FYmF6%3D%3D%20%C3%BC&client_id=app-client")
        #expect(fields(request) == ["grant_type": "refresh_token", "refresh_token": refreshToken, "client_id": "app-client"])
    }

    @Test(
        arguments: [
            (400, #"{"error":"invalid_grant","error_description":"expired"}"#, "invalid_grant", false),
            (401, #"{"error":"invalid_client"}"#, "invalid_client", false),
            (400, #"{"error":"invalid_request"}"#, "invalid_request", false),
            (429, #"{"error":"slow_down"}"#, "slow_down", true),
            (503, "Service Unavailable", nil, true),
            (201, Self.tokenBody, nil, false),
        ] as [(Int, String, String?, Bool)])
    func aNonSuccessTokenResponseBecomesAProviderError(_ status: Int, _ body: String, _ code: String?, _ transient: Bool) async throws {
        let transport = RecordingTransport(always: .json(status, body, headers: ["Retry-After": "7"]))
        let client = try client(transport)
        do {
            _ = try await client.refresh(Secret("RT-1"))
            Issue.record("HTTP \(status) was accepted")
        } catch {
            #expect(error.status == status)
            #expect(error.oauthError == code)
            #expect(error.isTransient == transient)
            #expect(error.retryAfter == .seconds(7))
        }
    }

    @Test func anHTTPDateRetryAfterIsReadAgainstTheClientsWallClock() async throws {
        // The client's injected now is 2026-01-01T00:00:00Z; the provider asks for 2 minutes.
        let transport = RecordingTransport(always: .json(503, "{}", headers: ["Retry-After": "Thu, 01 Jan 2026 00:02:00 GMT"]))
        let client = try client(transport)
        do {
            _ = try await client.refresh(Secret("RT-1"))
            Issue.record("HTTP 503 was accepted")
        } catch {
            #expect(error.retryAfter == .seconds(120))
            #expect(error.isTransient)
        }
    }

    @Test func aMalformedSuccessIsAnInvalidResponse() async throws {
        let transport = RecordingTransport(always: .json(200, #"{"access_token":"AT-1","token_type":"mac"}"#))
        await #expect(throws: ProviderError.invalidResponse("token_type is neither Bearer nor DPoP")) {
            try await client(transport).exchangeCode(Secret("c"), codeVerifier: Secret("v"))
        }
    }

    @Test(arguments: [TransportError.timedOut, .connectionFailed("refused"), .cancelled, .responseTooLarge(limit: 1)])
    func aTransportFailureIsWrapped(_ failure: TransportError) async throws {
        let transport = RecordingTransport { _ in .failure(failure) }
        await #expect(throws: ProviderError.transport(failure)) { try await client(transport).refresh(Secret("RT-1")) }
    }

    // MARK: Revocation

    @Test func revokeSendsTheTokenWithItsHintAndClient() async throws {
        let transport = RecordingTransport(always: HTTPResponse(status: 200))
        #expect(try await client(transport).revoke(Secret("RT+/=1")))
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://id.example.com/oauth/revoke")
        #expect(request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(request.bodyText == "token=RT%2B%2F%3D1&token_type_hint=refresh_token&client_id=app-client")
        #expect(fields(request) == ["token": "RT+/=1", "token_type_hint": "refresh_token", "client_id": "app-client"])
    }

    @Test func revokeWithoutAnEndpointSendsNothingAndReturnsFalse() async throws {
        let transport = RecordingTransport(always: HTTPResponse(status: 200))
        #expect(try await client(transport, revocation: false).revoke(Secret("RT-1")) == false)
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: [(503, true), (400, false), (401, false)])
    func aFailedRevocationThrows(_ status: Int, _ transient: Bool) async throws {
        let transport = RecordingTransport(always: .json(status, #"{"error":"unsupported_token_type"}"#))
        let client = try client(transport)
        do {
            _ = try await client.revoke(Secret("RT-1"))
            Issue.record("HTTP \(status) counted as revoked")
        } catch {
            #expect(error.status == status)
            #expect(error.isTransient == transient)
        }
    }

    // MARK: Disconnect

    @Test(arguments: [200, 202, 204, 299, 404])
    func disconnectCountsSuccessAndNotFoundAsConfirmed(_ status: Int) async throws {
        let transport = RecordingTransport(always: HTTPResponse(status: status))
        #expect(try await client(transport).disconnect(deviceKey: Secret("dk_live_123")))
        let request = try #require(transport.requests.first)
        #expect(transport.requests.count == 1)
        #expect(request.method == "DELETE")
        #expect(request.url.absoluteString == "https://id.example.com/api/v1/me/connected_apps/app-client")
        #expect(request.header("authorization") == "Bearer dk_live_123")
        #expect(request.body == nil)
    }

    @Test(arguments: [401, 403])
    func disconnectRefusalThrowsThePermanentStatus(_ status: Int) async throws {
        let transport = RecordingTransport(always: .json(status, #"{"error":"invalid_token"}"#))
        let client = try client(transport)
        do {
            _ = try await client.disconnect(deviceKey: Secret("dk_live_123"))
            Issue.record("HTTP \(status) counted as confirmed")
        } catch {
            guard case .http(status, "invalid_token", nil, _) = error else {
                Issue.record("expected HTTP \(status), got \(error)")
                return
            }
            #expect(!error.isTransient)
        }
    }

    @Test(arguments: [500, 503, 429, 408])
    func disconnectServerTroubleIsTransient(_ status: Int) async throws {
        let transport = RecordingTransport(always: HTTPResponse(status: status))
        let client = try client(transport)
        do {
            _ = try await client.disconnect(deviceKey: Secret("dk"))
            Issue.record("HTTP \(status) counted as confirmed")
        } catch {
            #expect(error.isTransient && error.status == status)
        }
    }

    @Test func disconnectWithoutAnEndpointSendsNothingAndReturnsFalse() async throws {
        let transport = RecordingTransport(always: HTTPResponse(status: 204))
        #expect(try await client(transport, disconnect: false).disconnect(deviceKey: Secret("dk")) == false)
        #expect(transport.requests.isEmpty)
    }

    // MARK: Keys

    @Test func fetchKeysGetsTheKeySet() async throws {
        let keys = try ProviderTestKeys()
        let transport = RecordingTransport(
            always: HTTPResponse(status: 200, body: ProviderTestKeys.jwksBody([("k1", keys.signing), ("k2", keys.rotated)])))
        let set = try await client(transport).fetchKeys()
        #expect(set.verificationKeyCount == 2)
        #expect(set.verificationKey(forKeyID: "k2") != nil)
        let request = try #require(transport.requests.first)
        #expect(request.method == "GET" && request.url.absoluteString == "https://id.example.com/.well-known/jwks.json")
    }

    @Test(arguments: ["", "{}", #"{"keys":"none"}"#, "<html>"])
    func anUndecodableKeySetIsAnInvalidResponse(_ body: String) async throws {
        let transport = RecordingTransport(always: .json(200, body))
        await #expect(throws: ProviderError.invalidResponse("JWKS does not decode")) { try await client(transport).fetchKeys() }
    }
}
