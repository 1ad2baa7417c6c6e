import Foundation
import SessionKitJOSE

extension SimulatedProviderState {
    /// What the authorization endpoint does once the person decided; returns the callback URL.
    mutating func authorize(
        _ url: URL, subject: String, decision: SimulatedProviderDecision, now: Date
    ) throws(SimulatedProviderAuthorizationError) -> URL {
        guard Self.sameOrigin(url, configuration.issuer),
            Self.path(of: url) == Self.path(of: configuration.issuer).trimmingTrailingSlashes
                + SimulatedProviderEndpoint.authorizationPath
        else { throw .notAuthorizationEndpoint }
        let query: [String: String]
        do {
            query = try SimulatedProviderForm.decodeQuery(of: url)
        } catch .repeated("client_id") {
            throw .unknownClient
        } catch .repeated("redirect_uri") {
            throw .redirectURIMismatch
        } catch {
            // An undecodable query names no verified redirect URI either.
            throw .redirectURIMismatch
        }
        guard query["client_id"] == configuration.clientID else { throw .unknownClient }
        guard let redirectURI = query["redirect_uri"], Self.redirectMatches(redirectURI, registered: configuration.redirectURI),
            let redirectURL = URL(string: redirectURI)
        else {
            throw .redirectURIMismatch
        }

        // From here on the redirect URI is verified, so errors go back to it (RFC 6749 §4.1.2.1).
        let state = query["state"]
        func callback(_ parameters: [(String, String)]) -> URL {
            var all = parameters
            if let state { all.append(("state", state)) }
            if configuration.includesIssuerInCallback { all.append(("iss", configuration.issuerString)) }
            return SimulatedProviderForm.appending(all, to: redirectURL)
        }
        guard query["response_type"] == "code" else {
            return callback([("error", "unsupported_response_type")])
        }
        let scope = query["scope"] ?? ""
        guard scope.split(separator: " ").contains("openid") else {
            return callback([("error", "invalid_scope"), ("error_description", "the openid scope is required")])
        }
        guard let challenge = query["code_challenge"], !challenge.isEmpty else {
            return callback([("error", "invalid_request"), ("error_description", "PKCE code_challenge is required")])
        }
        guard query["code_challenge_method"] == "S256" else {
            return callback([("error", "invalid_request"), ("error_description", "only the S256 PKCE method is supported")])
        }
        guard decision == .approve else {
            return callback([("error", "access_denied"), ("error_description", "the person declined")])
        }
        let code: String
        do {
            code = try RandomToken.generate(byteCount: 32)
        } catch {
            return callback([("error", "server_error")])
        }
        codes[code] = AuthorizationCode(
            clientID: configuration.clientID, redirectURI: redirectURI, challenge: challenge, nonce: query["nonce"],
            subject: subject, scope: scope, issuedAt: now)
        return callback([("code", code)])
    }
}

extension SimulatedProviderState {
    /// The registered redirect URI, or, when it is a loopback `http` one, the same with any port
    /// (RFC 8252 §7.3: the client picks the port per request).
    static func redirectMatches(_ requested: String, registered: URL) -> Bool {
        if requested == registered.absoluteString { return true }
        guard var candidate = URLComponents(string: requested), var expected = URLComponents(url: registered, resolvingAgainstBaseURL: false),
            expected.scheme == "http", expected.host == "127.0.0.1" || expected.host == "[::1]", candidate.port != nil
        else { return false }
        candidate.port = nil
        expected.port = nil
        return candidate.string == expected.string
    }
}

extension String {
    var trimmingTrailingSlashes: String {
        var text = self
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
