import Foundation
import SessionKit
import SessionKitJOSE
import Synchronization
import Testing

/// Answers every request with one canned result and remembers what was asked.
private final class CannedDocumentTransport: HTTPTransport {
    private let answer: Result<HTTPResponse, TransportError>
    private let requests = Locked<[HTTPRequest]>([])

    init(_ answer: Result<HTTPResponse, TransportError>) {
        self.answer = answer
    }

    convenience init(status: Int = 200, json: String) {
        self.init(.success(HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(json.utf8))))
    }

    var sent: [HTTPRequest] { requests.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        requests.withLock { $0.append(request) }
        return try answer.get()
    }
}

@Suite struct ProviderConfigurationDiscoveryTests {
    private let redirect = URL(string: "com.example.app:/callback")!

    /// The shape django-oauth-toolkit serves: an issuer with a path, no revocation endpoint.
    private func djangoLikeDocument(issuer: String = "https://id.example.com/o") -> String {
        """
        {"issuer": "\(issuer)",
         "authorization_endpoint": "https://id.example.com/o/authorize/",
         "token_endpoint": "https://id.example.com/o/token/",
         "userinfo_endpoint": "https://id.example.com/o/userinfo/",
         "jwks_uri": "https://id.example.com/o/.well-known/jwks.json",
         "response_types_supported": ["code"],
         "code_challenge_methods_supported": ["S256"]}
        """
    }

    @Test func endpointsComeFromTheDocumentFetchedUnderTheIssuer() async throws {
        let transport = CannedDocumentTransport(json: djangoLikeDocument())
        let configuration = try await ProviderConfiguration.discover(
            issuer: "https://id.example.com/o", clientID: "app", redirectURI: redirect, scopes: ["email"], transport: transport)

        #expect(transport.sent.map(\.url.absoluteString) == ["https://id.example.com/o/.well-known/openid-configuration"])
        #expect(transport.sent.first?.method == "GET")
        #expect(transport.sent.first?.header("accept") == "application/json")
        #expect(configuration.issuer == "https://id.example.com/o")
        #expect(configuration.clientID == "app")
        #expect(configuration.redirectURI == redirect)
        #expect(configuration.scopes == ["openid", "email"])
        #expect(configuration.authorizationEndpoint.absoluteString == "https://id.example.com/o/authorize/")
        #expect(configuration.tokenEndpoint.absoluteString == "https://id.example.com/o/token/")
        #expect(configuration.jwksURI.absoluteString == "https://id.example.com/o/.well-known/jwks.json")
        #expect(configuration.revocationEndpoint == nil)
        #expect(configuration.deviceKeyExchangeEndpoint == nil)
        #expect(configuration.disconnectEndpoint == nil)
        #expect(configuration.userInfoEndpoint?.absoluteString == "https://id.example.com/o/userinfo/")
        #expect(configuration.endSessionEndpoint == nil)
        #expect(configuration.deviceAuthorizationEndpoint == nil)
    }

    private static let optionalEndpointNames = ["userinfo_endpoint", "end_session_endpoint", "device_authorization_endpoint"]

    private func document(issuer: String = "https://id.example.com", adding extra: [String: Any]) throws -> String {
        var fields: [String: Any] = [
            "issuer": issuer, "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
            "jwks_uri": "\(issuer)/jwks",
        ]
        fields.merge(extra) { _, new in new }
        return String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
    }

    @Test func userInfoEndSessionAndDeviceAuthorizationEndpointsComeFromTheDocument() async throws {
        let json = try document(adding: [
            "userinfo_endpoint": "https://id.example.com/userinfo",
            "end_session_endpoint": "https://id.example.com/logout?tenant=a",
            "device_authorization_endpoint": "https://id.example.com/device",
        ])
        let configuration = try await ProviderConfiguration.discover(
            issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
        #expect(configuration.userInfoEndpoint?.absoluteString == "https://id.example.com/userinfo")
        #expect(configuration.endSessionEndpoint?.absoluteString == "https://id.example.com/logout?tenant=a")
        #expect(configuration.deviceAuthorizationEndpoint?.absoluteString == "https://id.example.com/device")
    }

    @Test(arguments: optionalEndpointNames)
    func anOptionalEndpointOverPlainHTTPOnAnotherHostIsRejected(_ name: String) async throws {
        let json = try document(adding: [name: "http://id.example.com/x"])
        await #expect(throws: ConfigurationError.invalidURL("\(name) must use https")) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
        }
    }

    @Test(arguments: optionalEndpointNames)
    func anOptionalEndpointOverPlainHTTPOnLoopbackIsAccepted(_ name: String) async throws {
        let issuer = "http://127.0.0.1:8000/o"
        let json = try document(issuer: issuer, adding: [name: "http://127.0.0.1:8000/o/x/"])
        let configuration = try await ProviderConfiguration.discover(
            issuer: issuer, clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
        let endpoints = [configuration.userInfoEndpoint, configuration.endSessionEndpoint, configuration.deviceAuthorizationEndpoint]
        #expect(endpoints.compactMap(\.self).map(\.absoluteString) == ["http://127.0.0.1:8000/o/x/"])
    }

    @Test(arguments: optionalEndpointNames)
    func anOptionalEndpointOfTheWrongTypeIsRejected(_ name: String) async throws {
        let json = try document(adding: [name: ["https://id.example.com/x"]])
        await #expect(throws: ConfigurationError.discoveryFailed("the discovery document's \(name) has the wrong type")) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
        }
    }

    @Test func aConfiguredRevocationEndpointFillsTheDocumentsGap() async throws {
        let revoke = try #require(URL(string: "https://id.example.com/o/revoke_token/"))
        let configuration = try await ProviderConfiguration.discover(
            issuer: "https://id.example.com/o", clientID: "app", redirectURI: redirect, revocationEndpoint: revoke,
            transport: CannedDocumentTransport(json: djangoLikeDocument()))
        #expect(configuration.revocationEndpoint == revoke)
    }

    @Test func theDocumentsRevocationEndpointWinsOverTheConfiguredOne() async throws {
        let document = """
            {"issuer": "https://id.example.com", "authorization_endpoint": "https://id.example.com/authorize",
             "token_endpoint": "https://id.example.com/token", "jwks_uri": "https://id.example.com/jwks",
             "revocation_endpoint": "https://id.example.com/revoke"}
            """
        let configuration = try await ProviderConfiguration.discover(
            issuer: "https://id.example.com", clientID: "app", redirectURI: redirect,
            revocationEndpoint: URL(string: "https://id.example.com/elsewhere"), transport: CannedDocumentTransport(json: document))
        #expect(configuration.revocationEndpoint?.absoluteString == "https://id.example.com/revoke")
    }

    @Test func anIssuerWithATrailingSlashIsFetchedWithoutADoubleSlashAndComparedAsWritten() async throws {
        let transport = CannedDocumentTransport(json: djangoLikeDocument(issuer: "https://id.example.com/o/"))
        let configuration = try await ProviderConfiguration.discover(
            issuer: "https://id.example.com/o/", clientID: "app", redirectURI: redirect, transport: transport)
        #expect(transport.sent.first?.url.absoluteString == "https://id.example.com/o/.well-known/openid-configuration")
        #expect(configuration.issuer == "https://id.example.com/o/")
    }

    @Test(arguments: ["https://evil.example.com/o", "https://id.example.com/o/", "https://ID.example.com/o", ""])
    func aDocumentNamingAnotherIssuerIsRejected(_ found: String) async throws {
        await #expect(throws: ConfigurationError.issuerMismatch(expected: "https://id.example.com/o", found: found)) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com/o", clientID: "app", redirectURI: redirect,
                transport: CannedDocumentTransport(json: djangoLikeDocument(issuer: found)))
        }
    }

    @Test(arguments: ["com.example_app", "my_app"])
    func aRedirectSchemeWithAnUnderscoreIsRejectedBeforeAnythingIsFetched(_ scheme: String) async throws {
        let transport = CannedDocumentTransport(json: djangoLikeDocument())
        // Built from raw bytes: Foundation on Linux refuses to parse such a URL from a string.
        let redirect = try #require(URL(dataRepresentation: Data("\(scheme):/callback".utf8), relativeTo: nil))
        await #expect(throws: ConfigurationError.invalidRedirectScheme(scheme)) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com/o", clientID: "app", redirectURI: redirect, transport: transport)
        }
        #expect(transport.sent.isEmpty)
    }

    @Test(arguments: ["http://id.example.com/o", "ftp://id.example.com/o", "id.example.com/o", "http://10.0.0.1/o"])
    func anInsecureIssuerIsRejectedBeforeAnythingIsFetched(_ issuer: String) async throws {
        let transport = CannedDocumentTransport(json: djangoLikeDocument(issuer: issuer))
        do {
            _ = try await ProviderConfiguration.discover(issuer: issuer, clientID: "app", redirectURI: redirect, transport: transport)
            Issue.record("an insecure issuer was accepted")
        } catch {
            guard case .invalidURL = error else {
                Issue.record("expected invalidURL, got \(error)")
                return
            }
        }
        #expect(transport.sent.isEmpty)
    }

    @Test(arguments: ["http://127.0.0.1:8000/o", "http://localhost:9400", "http://[::1]:9400", "http://127.9.8.7"])
    func plainHTTPIsAcceptedOnLoopbackHosts(_ issuer: String) async throws {
        let document = """
            {"issuer": "\(issuer)", "authorization_endpoint": "\(issuer)/authorize", "token_endpoint": "\(issuer)/token",
             "jwks_uri": "\(issuer)/jwks"}
            """
        let configuration = try await ProviderConfiguration.discover(
            issuer: issuer, clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: document))
        #expect(configuration.tokenEndpoint.absoluteString == "\(issuer)/token")
    }

    @Test func anEndpointOverPlainHTTPOnAnotherHostIsRejected() async throws {
        let document = """
            {"issuer": "https://id.example.com", "authorization_endpoint": "https://id.example.com/authorize",
             "token_endpoint": "http://id.example.com/token", "jwks_uri": "https://id.example.com/jwks"}
            """
        await #expect(throws: ConfigurationError.invalidURL("token_endpoint must use https")) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: document)
            )
        }
    }

    @Test(arguments: ["authorization_endpoint", "token_endpoint", "jwks_uri"])
    func aDocumentWithoutARequiredEndpointIsRejected(_ missing: String) async throws {
        var fields = [
            "issuer": "https://id.example.com", "authorization_endpoint": "https://id.example.com/authorize",
            "token_endpoint": "https://id.example.com/token", "jwks_uri": "https://id.example.com/jwks",
        ]
        fields[missing] = nil
        let json = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        await #expect(throws: ConfigurationError.discoveryFailed("the discovery document has no \(missing)")) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
        }
    }

    @Test(arguments: [
        (#"{"authorization_endpoint": "https://id.example.com/a"}"#, "the discovery document has no issuer"),
        (#"{"issuer": 7}"#, "the discovery document's issuer has the wrong type"),
        (#"["issuer"]"#, "the discovery document is not a JSON object"),
        ("<html>", "the discovery document is not a JSON object"),
        ("", "the discovery document is not a JSON object"),
    ])
    func anUndecodableDocumentIsRejected(_ json: String, _ reason: String) async throws {
        await #expect(throws: ConfigurationError.discoveryFailed(reason)) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
        }
    }

    @Test(arguments: [302, 404, 500])
    func aNonSuccessAnswerIsRejected(_ status: Int) async throws {
        await #expect(throws: ConfigurationError.discoveryFailed("the discovery document answered HTTP \(status)")) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect,
                transport: CannedDocumentTransport(status: status, json: djangoLikeDocument(issuer: "https://id.example.com")))
        }
    }

    @Test func aTransportFailureIsReportedAsDiscoveryFailure() async throws {
        let transport = CannedDocumentTransport(.failure(.connectionFailed("could not connect (https://id.example.com)")))
        await #expect(
            throws: ConfigurationError.discoveryFailed(
                "the discovery document could not be fetched: could not connect (https://id.example.com)")
        ) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: transport)
        }
        let slow = CannedDocumentTransport(.failure(.timedOut))
        await #expect(throws: ConfigurationError.discoveryFailed("the discovery document did not arrive in time")) {
            try await ProviderConfiguration.discover(
                issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: slow)
        }
    }
}

/// Which id_token algorithms a discovered configuration accepts.
@Suite struct ProviderConfigurationDiscoveryAlgorithmTests {
    private let redirect = URL(string: "com.example.app:/callback")!

    private func discover(_ algorithms: [String]?) async throws -> ProviderConfiguration {
        var fields: [String: Any] = [
            "issuer": "https://id.example.com", "authorization_endpoint": "https://id.example.com/authorize",
            "token_endpoint": "https://id.example.com/token", "jwks_uri": "https://id.example.com/jwks",
        ]
        if let algorithms { fields["id_token_signing_alg_values_supported"] = algorithms }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: fields), as: UTF8.self)
        return try await ProviderConfiguration.discover(
            issuer: "https://id.example.com", clientID: "app", redirectURI: redirect, transport: CannedDocumentTransport(json: json))
    }

    @Test func theDocumentsVerifiableAlgorithmsAreTheOnesAccepted() async throws {
        #expect(try await discover(["RS256", "ES256", "PS256", "none"]).idTokenSigningAlgorithms == [.rs256, .es256])
        #expect(try await discover(["ES256"]).idTokenSigningAlgorithms == [.es256])
        #expect(try await discover(["RS256"]).idTokenSigningAlgorithms == [.rs256])
    }

    @Test func aDocumentNamingNoVerifiableAlgorithmLeavesRS256() async throws {
        #expect(try await discover(nil).idTokenSigningAlgorithms == [.rs256])
        #expect(try await discover(["PS256", "HS256"]).idTokenSigningAlgorithms == [.rs256])
    }
}
