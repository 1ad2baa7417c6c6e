import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A simulated provider on a test clock, with raw-HTTP helpers that act as a client would.
///
/// Tokens and codes travel as `Secret`s so that a failing expectation prints them redacted.
struct ProviderFixture {
    struct Tokens {
        var accessToken: Secret
        var refreshToken: Secret
        var idToken: Secret
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
    func authorizeCode(subject: String, pkce: PKCE, nonce: String? = "nonce-1") throws -> Secret {
        let callback = try provider.authorize(authorizationURL(pkce: pkce, nonce: nonce), subject: subject)
        return try Self.code(in: callback)
    }

    /// The code of a callback URL, failing (without printing the URL) when there is none.
    static func code(in callback: URL) throws -> Secret {
        let code = query(callback)["code"]
        try #require(code != nil, "the callback carries no code")
        return Secret(code ?? "")
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
        code: Secret, verifier: Secret, redirectURI: String? = nil, clientID: String? = nil
    ) async throws(TransportError) -> HTTPResponse {
        try await post(
            .token,
            form: [
                ("grant_type", "authorization_code"), ("code", code.value),
                ("redirect_uri", redirectURI ?? configuration.redirectURI.absoluteString),
                ("client_id", clientID ?? configuration.clientID), ("code_verifier", verifier.value),
            ])
    }

    func exchange(code: Secret, pkce: PKCE) async throws(TransportError) -> HTTPResponse {
        try await exchange(code: code, verifier: Secret(pkce.verifier))
    }

    func refresh(_ refreshToken: Secret) async throws(TransportError) -> HTTPResponse {
        try await post(
            .token,
            form: [("grant_type", "refresh_token"), ("refresh_token", refreshToken.value), ("client_id", configuration.clientID)])
    }

    func revoke(_ token: Secret, clientID: String? = nil) async throws(TransportError) -> HTTPResponse {
        try await post(.revocation, form: [("token", token.value), ("client_id", clientID ?? configuration.clientID)])
    }

    func exchangeDeviceKey(accessToken: Secret?, body: [String: String]) async throws -> HTTPResponse {
        var headers = [("Content-Type", "application/json")]
        if let accessToken { headers.append(("Authorization", "Bearer \(accessToken.value)")) }
        return try await provider.send(
            HTTPRequest(
                method: "POST", url: url(.deviceKeyExchange), headers: headers,
                body: try JSONSerialization.data(withJSONObject: body)))
    }

    func disconnect(deviceKey: Secret, clientID: String? = nil) async throws(TransportError) -> HTTPResponse {
        try await provider.send(
            HTTPRequest(
                method: "DELETE", url: url(.disconnect, suffix: clientID ?? configuration.clientID),
                headers: [("Authorization", "Bearer \(deviceKey.value)")]))
    }

    /// Signs in through authorize + code exchange and returns the issued tokens.
    func signIn(subject: String = "alice", nonce: String? = "nonce-1") async throws -> Tokens {
        let pkce = try PKCE.generate()
        let code = try authorizeCode(subject: subject, pkce: pkce, nonce: nonce)
        let response = try await exchange(code: code, pkce: pkce)
        try #require(response.status == 200)
        return try Self.tokens(response)
    }

    func jwks() async throws -> JWKS {
        try JWKS(jsonData: await get(.jwks).body)
    }

    func expectations(nonce: String? = "nonce-1", accessToken: Secret? = nil) -> IDTokenExpectations {
        IDTokenExpectations(
            issuer: configuration.issuer.absoluteString, clientID: configuration.clientID, nonce: nonce,
            accessToken: accessToken?.value)
    }

    static func tokens(_ response: HTTPResponse) throws -> Tokens {
        let object = try json(response)
        return Tokens(
            accessToken: try secret(object, "access_token"), refreshToken: try secret(object, "refresh_token"),
            idToken: try secret(object, "id_token"))
    }

    /// A string member of a JSON object as a `Secret`.
    static func secret(_ object: [String: Any], _ name: String) throws -> Secret {
        Secret(try #require(object[name] as? String, "\(name) is missing"))
    }

    /// Validates an id_token as a sign-in would.
    func validate(_ idToken: Secret, keys: JWKS, nonce: String? = "nonce-1", accessToken: Secret? = nil) throws(IDTokenError)
        -> VerifiedIDToken
    {
        try IDTokenValidator.validate(
            idToken.value, keys: keys, expecting: expectations(nonce: nonce, accessToken: accessToken),
            now: clock.wallClockNow())
    }

    /// Validates an id_token as a refresh would.
    func validateRefreshed(_ idToken: Secret, keys: JWKS, previous: IDTokenClaims) throws(IDTokenError) -> VerifiedIDToken {
        try IDTokenValidator.validateRefreshed(
            idToken.value, keys: keys, expecting: expectations(nonce: nil), previous: previous, now: clock.wallClockNow())
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
