import Foundation
import SessionKit
import SessionKitCore
import SessionKitJOSE
import Testing

/// The DPoP middleware over a recording transport: proofs per RFC 9449 §4, nonces per server,
/// the token response checks.
@Suite struct DPoPMiddlewareTests {
    private static let now = Date(timeIntervalSince1970: 1_767_225_600)

    private struct Fixture {
        let key: P256PrivateKey
        let keys: DPoPKeyHolder
        let nonces = DPoPNonceCache()
        let transport: RecordingTransport
        let client: ProviderClient

        init(requirement: DPoPMiddleware.Requirement = .required, _ responder: @escaping RecordingTransport.Responder) throws {
            key = try P256PrivateKey.generate()
            keys = DPoPKeyHolder(key: key)
            transport = RecordingTransport(responder)
            let middleware = DPoPMiddleware(keys: keys, nonces: nonces, requirement: requirement, now: { DPoPMiddlewareTests.now })
            client = ProviderClient(
                configuration: try ProviderTestKeys.configuration(revocation: true, disconnect: true), transport: transport,
                middleware: [middleware], now: { DPoPMiddlewareTests.now })
        }
    }

    /// The header and claims of the proof a request carried, checked against the key first.
    private func proof(of request: HTTPRequest, key: P256PrivateKey) throws -> (header: [String: Any], claims: [String: Any]) {
        let value = try #require(request.header("DPoP"))
        let parts = value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(parts.count == 3)
        let signature = try Base64URL.decode(parts[2])
        #expect(key.publicKey.verifyES256(signature: signature, message: Array("\(parts[0]).\(parts[1])".utf8)))
        func object(_ part: String) throws -> [String: Any] {
            try #require(JSONSerialization.jsonObject(with: Data(Base64URL.decode(part))) as? [String: Any])
        }
        return (try object(parts[0]), try object(parts[1]))
    }

    /// Sends a UserInfo request through the fixture's middleware and transport.
    private func send(_ request: HTTPRequest, through fixture: Fixture) async throws -> HTTPResponse {
        let middleware = try #require(fixture.client.middleware.first)
        let transport = fixture.transport
        return try await middleware.intercept(request, endpoint: .userInfo) { request async throws(ProviderError) in
            do throws(TransportError) {
                return try await transport.send(request)
            } catch {
                throw .transport(error)
            }
        }
    }

    private static let dpopTokens =
        #"{"access_token":"AT-1","token_type":"DPoP","expires_in":600,"refresh_token":"RT-2"}"#

    @Test func aRefreshCarriesAProofForTheTokenEndpoint() async throws {
        let fixture = try Fixture { _ in .success(.json(200, Self.dpopTokens)) }
        let response = try await fixture.client.refresh(Secret("RT-1"))
        #expect(response.tokenType == "DPoP")
        let request = try #require(fixture.transport.requests.first)
        let (header, claims) = try proof(of: request, key: fixture.key)
        #expect(header["typ"] as? String == "dpop+jwt" && header["alg"] as? String == "ES256")
        let jwk = try #require(header["jwk"] as? [String: String])
        #expect(
            jwk == [
                "kty": "EC", "crv": "P-256", "x": Base64URL.encode(fixture.key.publicKey.x), "y": Base64URL.encode(fixture.key.publicKey.y),
            ])
        #expect(claims["htm"] as? String == "POST")
        #expect(claims["htu"] as? String == DPoPTargetURI.normalized(request.url))
        #expect(claims["iat"] as? Int == 1_767_225_600)
        #expect(claims["ath"] == nil && claims["nonce"] == nil)
        #expect((claims["jti"] as? String)?.isEmpty == false)
        #expect(fixture.keys.accessTokenIsBound)
    }

    @Test func aBoundAccessTokenIsPresentedUnderTheDPoPSchemeWithItsHash() async throws {
        let fixture = try Fixture { request in
            request.url.path.hasSuffix("token")
                ? .success(.json(200, Self.dpopTokens)) : .success(.json(200, #"{"sub":"user-1"}"#))
        }
        _ = try await fixture.client.refresh(Secret("RT-1"))
        let userInfo = HTTPRequest(
            method: "GET", url: URL(string: "https://id.example.com/userinfo?x=1#f")!,
            headers: [("Authorization", "Bearer AT-1")])
        _ = try await send(userInfo, through: fixture)
        let sent = try #require(fixture.transport.requests.last)
        #expect(sent.header("Authorization") == "DPoP AT-1")
        let (_, claims) = try proof(of: sent, key: fixture.key)
        #expect(claims["htm"] as? String == "GET")
        #expect(claims["htu"] as? String == "https://id.example.com/userinfo")
        #expect(claims["ath"] as? String == DPoPProofSigner.accessTokenHash("AT-1"))
    }

    @Test func aUseDPoPNonceAnswerIsNotResentHereButSignalledAndItsNonceKept() async throws {
        let fixture = try Fixture { request in
            request.header("DPoP").map { $0.isEmpty } == false && fixtureProofHasNonce(request)
                ? .success(.json(200, Self.dpopTokens, headers: ["DPoP-Nonce": "n-2"]))
                : .success(.json(400, #"{"error":"use_dpop_nonce"}"#, headers: ["DPoP-Nonce": "n-1"]))
        }
        // The middleware sends once and says a retry with the new nonce may pass; the sender decides.
        await #expect(throws: ProviderError.dpop(DPoPFailure(.useNonce))) { try await fixture.client.refresh(Secret("RT-1")) }
        #expect(fixture.transport.requests.count == 1)
        #expect(fixture.nonces.nonce(for: fixture.transport.requests[0].url)?.value == "n-1")
        // Sent again, the request carries the nonce in a fresh proof.
        _ = try await fixture.client.refresh(Secret("RT-1"))
        let requests = fixture.transport.requests
        #expect(requests.count == 2)
        #expect(try proof(of: requests[0], key: fixture.key).claims["nonce"] == nil)
        #expect(try proof(of: requests[1], key: fixture.key).claims["nonce"] as? String == "n-1")
        #expect(requests[0].body == requests[1].body)
        #expect(
            try proof(of: requests[0], key: fixture.key).claims["jti"] as? String
                != proof(of: requests[1], key: fixture.key).claims["jti"] as? String)
        // The success carried the next nonce: it replaced the first one for this server only.
        #expect(fixture.nonces.nonce(for: requests[0].url)?.value == "n-2")
        #expect(fixture.nonces.nonce(for: URL(string: "https://rs.example.com/api")!) == nil)
    }

    @Test func theNonceSignalIsAboutTheProofNeverTheGrant() {
        let signal = ProviderError.dpop(DPoPFailure(.useNonce))
        #expect(signal.disposition(in: .refresh) == .transient)
        #expect(signal.disposition(in: .codeExchange) == .transient)
        #expect(signal.isDPoPRefusal)
        #expect(!signal.isTransient)
    }

    @Test func aNonceDemandWithoutANewNonceIsTheProvidersAnswer() async throws {
        let fixture = try Fixture { _ in .success(.json(400, #"{"error":"use_dpop_nonce"}"#)) }
        await #expect(throws: ProviderError.http(status: 400, error: "use_dpop_nonce", retryAfterSeconds: nil, excerpt: "")) {
            try await fixture.client.refresh(Secret("RT-1"))
        }
        #expect(fixture.transport.requests.count == 1)
    }

    @Test func aResourceChallengeForANonceIsSignalledWithItsNonceKept() async throws {
        let fixture = try Fixture { request in
            fixtureProofHasNonce(request)
                ? .success(.json(200, "{}"))
                : .success(
                    .json(401, "", headers: ["WWW-Authenticate": #"DPoP error="use_dpop_nonce", algs="ES256""#, "DPoP-Nonce": "rs-1"]))
        }
        let request = HTTPRequest(method: "GET", url: URL(string: "https://id.example.com/userinfo")!)
        await #expect(throws: ProviderError.dpop(DPoPFailure(.useNonce))) { try await send(request, through: fixture) }
        #expect(fixture.transport.requests.count == 1)
        let response = try await send(request, through: fixture)
        #expect(response.status == 200)
        #expect(try proof(of: fixture.transport.requests[1], key: fixture.key).claims["nonce"] as? String == "rs-1")
    }

    @Test func anInvalidDPoPProofAnswerIsItsOwnError() async throws {
        let fixture = try Fixture { _ in .success(.json(400, #"{"error":"invalid_dpop_proof"}"#)) }
        await #expect(throws: ProviderError.http(status: 400, error: "invalid_dpop_proof", retryAfterSeconds: nil, excerpt: "")) {
            try await fixture.client.refresh(Secret("RT-1"))
        }
    }

    @Test func aBearerAnswerIsRefusedWhenDPoPIsRequiredAndAcceptedWhenIssued() async throws {
        let bearer = #"{"access_token":"AT-1","token_type":"Bearer","expires_in":600}"#
        let required = try Fixture { _ in .success(.json(200, bearer)) }
        await #expect(throws: ProviderError.dpop(DPoPFailure(.bearerWhereRequired))) {
            try await required.client.refresh(Secret("RT-1"))
        }
        let whenIssued = try Fixture(requirement: .whenIssued) { _ in .success(.json(200, bearer)) }
        #expect(try await whenIssued.client.refresh(Secret("RT-1")).tokenType == "Bearer")
        #expect(!whenIssued.keys.accessTokenIsBound)
    }

    @Test func aConfirmationOfAnotherKeyIsRefused() async throws {
        let other = try P256PrivateKey.generate().publicKey.thumbprint
        let claims = Base64URL.encode(Array(#"{"sub":"u","cnf":{"jkt":"\#(other)"}}"#.utf8))
        let body = #"{"access_token":"e30.\#(claims).sig","token_type":"DPoP"}"#
        let fixture = try Fixture { _ in .success(.json(200, body)) }
        await #expect(throws: ProviderError.dpop(DPoPFailure(.thumbprintMismatch))) {
            try await fixture.client.refresh(Secret("RT-1"))
        }
        let matching = try Fixture { _ in .success(.json(200, Self.dpopTokens)) }
        let own = Base64URL.encode(Array(#"{"cnf":{"jkt":"\#(matching.key.publicKey.thumbprint)"}}"#.utf8))
        matching.transport.respond { _ in .success(.json(200, #"{"access_token":"e30.\#(own).sig","token_type":"DPoP"}"#)) }
        #expect(try await matching.client.refresh(Secret("RT-1")).tokenType == "DPoP")
    }

    @Test func theAuthorizationRequestCarriesTheKeysThumbprint() throws {
        let fixture = try Fixture { _ in .success(.json(500, "{}")) }
        let url = fixture.client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n")
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.first { $0.name == "dpop_jkt" }?.value == fixture.key.publicKey.thumbprint)
        let withOptions = try fixture.client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n", options: .empty)
        #expect(withOptions == url)
    }

    @Test func theSigningKeysAndTheDisconnectGoWithoutAProof() async throws {
        let fixture = try Fixture { _ in .success(.json(200, "{}")) }
        _ = try await fixture.client.disconnect(deviceKey: Secret("DK"))
        #expect(fixture.transport.requests.first?.header("DPoP") == nil)
        #expect(fixture.transport.requests.first?.header("Authorization") == "Bearer DK")
    }

    @Test func targetURIsAreNormalised() {
        let cases: [(String, String)] = [
            ("HTTPS://Server.Example.COM:443/token?x=1#frag", "https://server.example.com/token"),
            ("http://a.example:80", "http://a.example/"),
            ("https://a.example:8443/p%7e%2fq%3a", "https://a.example:8443/p~%2Fq%3A"),
            ("https://user:pw@a.example/x", "https://a.example/x"),
            ("http://[::1]:9000/t", "http://[::1]:9000/t"),
        ]
        for (input, expected) in cases {
            #expect(DPoPTargetURI.normalized(URL(string: input)!) == expected, "\(input)")
        }
    }

    @Test("a URL normalised before gives the same htu again, also after many others and for one without a host")
    func targetURIsAreTheSameWhenAskedAgain() {
        let cases: [(String, String?)] = [
            ("HTTPS://Server.Example.COM:443/token?x=1#frag", "https://server.example.com/token"),
            ("https://a.example:8443/p%7e%2fq%3a", "https://a.example:8443/p~%2Fq%3A"),
            ("urn:example:no-host", nil),
        ]
        for round in 0..<3 {
            for (input, expected) in cases {
                #expect(DPoPTargetURI.normalized(URL(string: input)!) == expected, "\(input)")
            }
            // More URLs than are kept between the rounds: what is forgotten is computed again.
            for index in 0..<40 {
                let url = URL(string: "https://host\(index).example/Path\(round)")!
                #expect(DPoPTargetURI.normalized(url) == "https://host\(index).example/Path\(round)")
            }
        }
    }
}

/// Whether a request's proof carries a `nonce` claim (read without checking the signature).
private func fixtureProofHasNonce(_ request: HTTPRequest) -> Bool {
    guard let proof = request.header("DPoP") else { return false }
    let parts = proof.split(separator: ".")
    guard parts.count == 3, let payload = try? Base64URL.decode(parts[1]),
        let claims = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
    else { return false }
    return claims["nonce"] != nil
}
