import Foundation
import SessionKit
import SessionKitJOSE
import Testing

/// Client authentication as middleware at the token, revocation and device authorization
/// endpoints (RFC 6749 §2.3.1, RFC 7523 §2.2, OpenID Connect Core §9), chosen against the
/// provider's `*_auth_methods_supported` (RFC 8414 §2).
@Suite("Client authentication")
struct ClientAuthenticationTests {
    private static let tokenAnswer = HTTPResponse.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":60}"#)

    private func client(
        _ authentication: ClientAuthentication, configure: (inout ProviderConfiguration) -> Void = { _ in }
    ) throws -> (ProviderClient, RecordingTransport) {
        var provider = try ProviderTestKeys.configuration()
        provider.deviceAuthorizationEndpoint = URL(string: "https://id.example.com/oauth/device")!
        configure(&provider)
        let transport = RecordingTransport { request in
            if request.url.path.hasSuffix("/device") {
                return .success(
                    .json(200, #"{"device_code":"d","user_code":"U","verification_uri":"https://id.example.com/d","expires_in":600}"#))
            }
            return .success(request.url.path.hasSuffix("/revoke") ? .json(200, "{}") : Self.tokenAnswer)
        }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let client = ProviderClient(
            configuration: provider, transport: transport, middleware: authentication.middleware(for: provider, now: { now }),
            now: { now })
        return (client, transport)
    }

    private func form(_ request: HTTPRequest) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in (request.bodyText ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    @Test("none: a public client sends its client_id and no credentials")
    func none() async throws {
        let (client, transport) = try client(.none)
        _ = try await client.refresh(Secret("rt"))
        let request = try #require(transport.requests.first)
        #expect(request.header("Authorization") == nil)
        #expect(form(request)["client_id"] == ProviderTestKeys.clientID)
        #expect(form(request)["client_secret"] == nil)
    }

    @Test("client_secret_basic form-encodes id and secret before base64 (RFC 6749 §2.3.1)")
    func basicFormEncoding() async throws {
        let (client, transport) = try client(.clientSecretBasic(Secret("a b+c/d:e%f~")))
        _ = try await client.refresh(Secret("rt"))
        _ = try await client.revoke(Secret("rt"))
        _ = try await client.requestDeviceAuthorization()
        #expect(transport.requests.count == 3)
        for request in transport.requests {
            let header = try #require(request.header("Authorization"))
            #expect(header.hasPrefix("Basic "))
            let decoded = String(decoding: try #require(Data(base64Encoded: String(header.dropFirst(6)))), as: UTF8.self)
            #expect(decoded == "\(ProviderTestKeys.clientID):a+b%2Bc%2Fd%3Ae%25f~")
            #expect(form(request)["client_secret"] == nil)
        }
    }

    @Test("client_secret_post puts the secret in the body at every endpoint that authenticates, and nowhere else")
    func post() async throws {
        let (client, transport) = try client(.clientSecretPost(Secret("s3cret value")))
        _ = try await client.exchangeCode(Secret("code"), codeVerifier: Secret("verifier"))
        _ = try await client.revoke(Secret("rt"))
        _ = try await client.requestDeviceAuthorization()
        _ = try? await client.fetchKeys()
        let requests = transport.requests
        #expect(requests.count == 4)
        for request in requests.prefix(3) {
            #expect(form(request)["client_secret"] == "s3cret value")
            #expect(form(request)["client_id"] == ProviderTestKeys.clientID)
            #expect(request.bodyText?.components(separatedBy: "client_id=").count == 2, "client_id once")
            #expect(request.header("Authorization") == nil)
        }
        #expect(requests[3].body == nil, "the key set fetch carries no secret")
    }

    @Test("private_key_jwt sends a fresh RS256 assertion per request with iss, sub, aud, jti, iat and exp (RFC 7523 §3)")
    func privateKeyJWTRS256() async throws {
        let key = try RSAPrivateKey.generate()
        let (client, transport) = try client(.privateKeyJWT(.rs256(key, keyID: "client-key-1")))
        _ = try await client.refresh(Secret("rt"))
        _ = try await client.refresh(Secret("rt"))
        let keys = JWKS(keys: [key.publicJWK(keyID: "client-key-1")])
        var identifiers: Set<String> = []
        for request in transport.requests {
            let fields = form(request)
            #expect(fields["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let assertion = try #require(fields["client_assertion"])
            let jws = try CompactJWS.verify(assertion, keys: keys, algorithms: [.rs256])
            #expect(jws.header.keyID == "client-key-1")
            let claims = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
            #expect(claims["iss"] as? String == ProviderTestKeys.clientID)
            #expect(claims["sub"] as? String == ProviderTestKeys.clientID)
            #expect(claims["aud"] as? String == "https://id.example.com/oauth/token")
            #expect(claims["iat"] as? Int == 1_800_000_000)
            #expect(claims["exp"] as? Int == 1_800_000_060)
            identifiers.insert(try #require(claims["jti"] as? String))
        }
        #expect(identifiers.count == 2, "every assertion has a fresh jti")
    }

    @Test("private_key_jwt with ES256 and the issuer as audience")
    func privateKeyJWTES256() async throws {
        let key = try P256PrivateKey.generate()
        let (client, transport) = try client(.privateKeyJWT(.es256(key, keyID: "ec-1"), audience: .issuer))
        _ = try await client.revoke(Secret("rt"))
        let request = try #require(transport.requests.first)
        let assertion = try #require(form(request)["client_assertion"])
        let jws = try CompactJWS.verify(assertion, keys: JWKS(keys: [key.publicJWK(keyID: "ec-1")]), algorithms: [.es256])
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
        #expect(claims["aud"] as? String == ProviderTestKeys.issuer)
    }

    @Test("revocation uses the method its own metadata lists (RFC 8414 §2); the token endpoint keeps the configured one")
    func revocationFollowsItsMetadata() async throws {
        let (client, transport) = try client(.clientSecretBasic(Secret("s"))) {
            $0.tokenEndpointAuthMethods = ["client_secret_basic", "client_secret_post"]
            $0.revocationEndpointAuthMethods = ["client_secret_post"]
        }
        _ = try await client.refresh(Secret("rt"))
        _ = try await client.revoke(Secret("rt"))
        let requests = transport.requests
        #expect(requests[0].header("Authorization")?.hasPrefix("Basic ") == true)
        #expect(form(requests[0])["client_secret"] == nil)
        #expect(requests[1].header("Authorization") == nil)
        #expect(form(requests[1])["client_secret"] == "s")
    }

    @Test("the method is checked against token_endpoint_auth_methods_supported")
    func checkedAgainstDiscovery() throws {
        var provider = try ProviderTestKeys.configuration()
        try ClientAuthentication.clientSecretPost(Secret("s")).check(against: provider)
        provider.tokenEndpointAuthMethods = ["client_secret_basic"]
        try ClientAuthentication.clientSecretBasic(Secret("s")).check(against: provider)
        #expect(throws: ConfigurationError.unsupportedClientAuthentication("client_secret_post")) {
            try ClientAuthentication.clientSecretPost(Secret("s")).check(against: provider)
        }
        // A public client is never refused here: lists often leave `none` out.
        try ClientAuthentication.none.check(against: provider)
        // Only the secret methods stand in for each other; a key never becomes a secret.
        #expect(ClientAuthentication.clientSecretPost(Secret("s")).method(supported: ["client_secret_basic"]) == .clientSecretBasic)
        #expect(ClientAuthentication.none.method(supported: ["client_secret_basic"]) == .none)
    }

    @Test("private_key_jwt with a key read from PEM: its algorithm from the key, typed errors for bad text")
    func privateKeyJWTFromPEM() async throws {
        let key = try P256PrivateKey.generate()
        let pem = try Self.sec1PEM(key)
        let assertionKey = try ClientAssertionKey(pem: pem, keyID: "ec-pem")
        #expect(assertionKey.algorithm == .es256)
        #expect(try ClientAssertionKey(pemBytes: Array(pem.utf8), keyID: nil).algorithm == .es256)
        let (client, transport) = try client(.privateKeyJWT(assertionKey))
        _ = try await client.refresh(Secret("rt"))
        let request = try #require(transport.requests.first)
        let assertion = try #require(form(request)["client_assertion"])
        let jws = try CompactJWS.verify(assertion, keys: JWKS(keys: [key.publicJWK(keyID: "ec-pem")]), algorithms: [.es256])
        #expect(jws.header.keyID == "ec-pem")
        let body = pem.split(separator: "\n")[1]
        for text in ["\(assertionKey)", String(reflecting: assertionKey)] {
            #expect(!text.contains(body.prefix(12)))
        }
        #expect(throws: PrivateKeyPEMError.notPEM) { try ClientAssertionKey(pem: "client secret, not a key", keyID: nil) }
        #expect(throws: PrivateKeyPEMError.notAPrivateKey) {
            try ClientAssertionKey(pem: pem.replacing("EC PRIVATE KEY", with: "CERTIFICATE"), keyID: nil)
        }
    }

    /// A SEC 1 `EC PRIVATE KEY` PEM of `key`, built here so no key file is checked in.
    private static func sec1PEM(_ key: P256PrivateKey) throws -> String {
        let curve: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let publicKey: [UInt8] = [0xA1, 0x44, 0x03, 0x42, 0x00, 0x04] + key.publicKey.x + key.publicKey.y
        let der: [UInt8] = [0x30, 0x77, 0x02, 0x01, 0x01, 0x04, 0x20] + (try key.exportScalar()) + curve + publicKey
        return "-----BEGIN EC PRIVATE KEY-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters)
            + "\n-----END EC PRIVATE KEY-----\n"
    }

    @Test("no rendering shows the secret or the key")
    func redaction() throws {
        let secret = Secret("very-secret-value-123")
        let key = try P256PrivateKey.generate()
        let provider = try ProviderTestKeys.configuration()
        let values: [Any] =
            [
                ClientAuthentication.clientSecretBasic(secret), ClientAuthentication.clientSecretPost(secret),
                ClientSecretBasicAuthentication(clientID: "c", secret: secret),
                ClientSecretPostAuthentication(clientID: "c", secret: secret),
                ClientAuthentication.privateKeyJWT(.es256(key, keyID: "k")),
            ] + ClientAuthentication.clientSecretBasic(secret).middleware(for: provider, now: { Date() })
        for value in values {
            var dumped = ""
            dump(value, to: &dumped)
            for text in ["\(value)", String(reflecting: value), dumped] {
                #expect(!text.contains(secret.value))
                #expect(!text.contains("very-secret"))
            }
        }
        #expect("\(ClientAuthentication.clientSecretPost(secret))" == "ClientAuthentication(client_secret_post)")
    }
}
