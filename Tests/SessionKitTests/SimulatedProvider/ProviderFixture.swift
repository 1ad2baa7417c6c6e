import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A simulated provider on a test clock, with raw-HTTP helpers that act as a client would.
struct ProviderFixture {
    struct Tokens {
        var accessToken: String
        var refreshToken: String
        var idToken: String
    }

    let clock: TestClock
    let provider: SimulatedProvider<TestClock>
    var configuration: SimulatedProviderConfiguration { provider.configuration }

    init(_ configuration: SimulatedProviderConfiguration = SimulatedProviderConfiguration()) throws {
        let clock = TestClock()
        self.clock = clock
        self.provider = try SimulatedProvider(
            configuration: configuration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: SimulatedProviderKeys.shared(count: 3))
    }

    func url(_ endpoint: SimulatedProviderEndpoint, suffix: String = "") -> URL {
        URL(string: configuration.issuer.absoluteString + endpoint.path + suffix)!
    }

    func authorizationURL(
        pkce: PKCE, state: String = "state-1", nonce: String? = "nonce-1", clientID: String? = nil,
        redirectURI: String? = nil, responseType: String = "code", challengeMethod: String = "S256",
        scope: String = "openid profile:basic email"
    ) -> URL {
        var parameters = [
            ("response_type", responseType), ("client_id", clientID ?? configuration.clientID),
            ("redirect_uri", redirectURI ?? configuration.redirectURI.absoluteString), ("scope", scope),
            ("state", state), ("code_challenge", pkce.challenge), ("code_challenge_method", challengeMethod),
        ]
        if let nonce { parameters.append(("nonce", nonce)) }
        return URL(string: configuration.issuer.absoluteString + "/oauth/authorize?" + Self.formEncode(parameters))!
    }

    /// Approves an authorization request as `subject` and returns the code from the callback.
    func authorizeCode(subject: String, pkce: PKCE, nonce: String? = "nonce-1") throws -> String {
        let callback = try provider.authorize(authorizationURL(pkce: pkce, nonce: nonce), subject: subject)
        return try #require(Self.query(callback)["code"])
    }

    func get(_ endpoint: SimulatedProviderEndpoint) async throws(TransportError) -> HTTPResponse {
        try await provider.send(HTTPRequest(method: "GET", url: url(endpoint)))
    }

    func post(_ endpoint: SimulatedProviderEndpoint, form: [(String, String)]) async throws(TransportError) -> HTTPResponse {
        try await provider.send(
            HTTPRequest(
                method: "POST", url: url(endpoint),
                headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Data(Self.formEncode(form).utf8)))
    }

    func exchange(
        code: String, verifier: String, redirectURI: String? = nil, clientID: String? = nil
    ) async throws(TransportError) -> HTTPResponse {
        try await post(
            .token,
            form: [
                ("grant_type", "authorization_code"), ("code", code),
                ("redirect_uri", redirectURI ?? configuration.redirectURI.absoluteString),
                ("client_id", clientID ?? configuration.clientID), ("code_verifier", verifier),
            ])
    }

    func refresh(_ refreshToken: String) async throws(TransportError) -> HTTPResponse {
        try await post(
            .token,
            form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken), ("client_id", configuration.clientID)])
    }

    func revoke(_ token: String, clientID: String? = nil) async throws(TransportError) -> HTTPResponse {
        try await post(.revocation, form: [("token", token), ("client_id", clientID ?? configuration.clientID)])
    }

    func exchangeDeviceKey(accessToken: String?, body: [String: String]) async throws -> HTTPResponse {
        var headers = [("Content-Type", "application/json")]
        if let accessToken { headers.append(("Authorization", "Bearer \(accessToken)")) }
        return try await provider.send(
            HTTPRequest(
                method: "POST", url: url(.deviceKeyExchange), headers: headers,
                body: try JSONSerialization.data(withJSONObject: body)))
    }

    func disconnect(deviceKey: String, clientID: String? = nil) async throws(TransportError) -> HTTPResponse {
        try await provider.send(
            HTTPRequest(
                method: "DELETE", url: url(.disconnect, suffix: clientID ?? configuration.clientID),
                headers: [("Authorization", "Bearer \(deviceKey)")]))
    }

    /// Signs in through authorize + code exchange and returns the issued tokens.
    func signIn(subject: String = "alice", nonce: String? = "nonce-1") async throws -> Tokens {
        let pkce = try PKCE.generate()
        let code = try authorizeCode(subject: subject, pkce: pkce, nonce: nonce)
        let response = try await exchange(code: code, verifier: pkce.verifier)
        try #require(response.status == 200)
        return try Self.tokens(response)
    }

    func jwks() async throws -> JWKS {
        try JWKS(jsonData: await get(.jwks).body)
    }

    func expectations(nonce: String? = "nonce-1", accessToken: String? = nil) -> IDTokenExpectations {
        IDTokenExpectations(
            issuer: configuration.issuer.absoluteString, clientID: configuration.clientID, nonce: nonce,
            accessToken: accessToken)
    }

    static func tokens(_ response: HTTPResponse) throws -> Tokens {
        let object = try json(response)
        return Tokens(
            accessToken: try #require(object["access_token"] as? String),
            refreshToken: try #require(object["refresh_token"] as? String),
            idToken: try #require(object["id_token"] as? String))
    }

    static func json(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    static func errorCode(_ response: HTTPResponse) -> String? {
        (try? json(response))?["error"] as? String
    }

    static func query(_ url: URL) -> [String: String] {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return Dictionary(items.map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { first, _ in first })
    }

    static func formEncode(_ parameters: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return parameters.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
