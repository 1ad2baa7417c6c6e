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
        let resources: [String]
        do {
            let decoded = try SimulatedProviderForm.decodeQuery(of: url, repeatable: ["resource"])
            query = decoded.single
            resources = decoded.repeated["resource"] ?? []
        } catch .repeated("client_id") {
            throw .unknownClient
        } catch .repeated("redirect_uri") {
            throw .redirectURIMismatch
        } catch {
            // An undecodable query names no verified redirect URI either.
            throw .redirectURIMismatch
        }
        guard let clientID = query["client_id"], isKnownClient(clientID) else { throw .unknownClient }
        guard let redirectURI = query["redirect_uri"], isRegisteredRedirect(redirectURI, for: clientID),
            let redirectURL = URL(string: redirectURI)
        else {
            throw .redirectURIMismatch
        }

        // From here on the redirect URI is verified, so errors go back to it (RFC 6749 §4.1.2.1).
        let state = query["state"]
        let options = RequestOptions(query: query, supportedACRValues: configuration.supportedACRValues)
        var authenticated = false
        func record(_ error: String?) {
            authorizationRecords.append(
                SimulatedProviderAuthorizationRecord(
                    subject: subject, scopes: (query["scope"] ?? "").split(separator: " ").map(String.init), prompt: options.prompt,
                    maxAge: options.maxAge, loginHint: query["login_hint"], hadIDTokenHint: query["id_token_hint"] != nil,
                    uiLocales: options.words("ui_locales"), acrValues: options.acrValues, acrIsEssential: options.acrIsEssential,
                    resources: resources, otherParameterNames: options.otherParameterNames, authenticated: authenticated,
                    error: error, receivedAt: now))
        }
        func callback(_ parameters: [(String, String)]) -> URL {
            record(parameters.first { $0.0 == "error" }?.1)
            var all = parameters
            if let state { all.append(("state", state)) }
            if configuration.includesIssuerInCallback { all.append(("iss", configuration.issuerString)) }
            return SimulatedProviderForm.appending(all, to: redirectURL)
        }
        guard query["response_type"] == "code" else {
            return callback([("error", "unsupported_response_type")])
        }
        var scope = query["scope"] ?? ""
        guard scope.split(separator: " ").contains("openid") else {
            return callback([("error", "invalid_scope"), ("error_description", "the openid scope is required")])
        }
        guard let challenge = query["code_challenge"], !challenge.isEmpty else {
            return callback([("error", "invalid_request"), ("error_description", "PKCE code_challenge is required")])
        }
        guard query["code_challenge_method"] == "S256" else {
            return callback([("error", "invalid_request"), ("error_description", "only the S256 PKCE method is supported")])
        }
        guard !options.prompt.contains("none") || options.prompt.count == 1 else {
            return callback([("error", "invalid_request"), ("error_description", "prompt=none stands alone")])
        }
        guard options.maxAge.map({ $0 >= 0 }) ?? true, query["max_age"].map({ Int($0) != nil }) ?? true else {
            return callback([("error", "invalid_request"), ("error_description", "max_age is not a non-negative integer")])
        }
        // The simulated browser's session decides whether the person must authenticate again
        // (OIDC Core §3.1.2.1: prompt=login, max_age exceeded, or no session yet).
        let session = browserSessions[subject]
        let tooOld = options.maxAge.map { maxAge in session.map { now.timeIntervalSince($0) > Double(maxAge) } ?? true } ?? false
        authenticated = session == nil || options.prompt.contains("login") || tooOld
        if options.prompt.contains("none"), authenticated {
            authenticated = false
            return callback([("error", "login_required"), ("error_description", "the person must sign in")])
        }
        guard decision == .approve else {
            return callback([("error", "access_denied"), ("error_description", "the person declined")])
        }
        // OIDC Core §11: without prompt=consent the provider must ignore the offline_access request.
        if configuration.ignoresOfflineAccessWithoutConsent, !options.prompt.contains("consent") {
            scope = scope.split(separator: " ").filter { $0 != "offline_access" }.joined(separator: " ")
        }
        let authTime = authenticated ? now : (session ?? now)
        browserSessions[subject] = authTime
        let code: String
        do {
            code = try RandomToken.generate(byteCount: 32)
        } catch {
            return callback([("error", "server_error")])
        }
        codes[code] = AuthorizationCode(
            clientID: clientID, redirectURI: redirectURI, challenge: challenge, nonce: query["nonce"],
            subject: subject, scope: scope, issuedAt: now,
            authTime: options.maxAge != nil || configuration.alwaysIncludesAuthTime ? authTime : nil, acr: options.acr,
            dpopJKT: configuration.dpop != nil ? query["dpop_jkt"] : nil)
        return callback([("code", code)])
    }
}

/// The options of an authorization request the simulated provider interprets.
private struct RequestOptions {
    var prompt: [String]
    var maxAge: Int?
    var acrValues: [String]
    var acrIsEssential: Bool
    /// The first requested `acr` the provider supports.
    var acr: String?
    var otherParameterNames: [String]
    let query: [String: String]

    private static let interpreted: Set<String> = [
        "response_type", "client_id", "redirect_uri", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
        "prompt", "max_age", "login_hint", "id_token_hint", "ui_locales", "acr_values", "claims", "resource",
    ]

    init(query: [String: String], supportedACRValues: [String]) {
        self.query = query
        prompt = []
        acrValues = []
        acrIsEssential = false
        otherParameterNames = query.keys.filter { !Self.interpreted.contains($0) }.sorted()
        prompt = words("prompt")
        maxAge = query["max_age"].flatMap { Int($0) }
        acrValues = words("acr_values")
        if let claims = query["claims"], let object = try? JSONSerialization.jsonObject(with: Data(claims.utf8)) as? [String: Any],
            let idToken = object["id_token"] as? [String: Any], let acr = idToken["acr"] as? [String: Any]
        {
            acrIsEssential = acr["essential"] as? Bool ?? false
            if let values = acr["values"] as? [String], acrValues.isEmpty { acrValues = values }
        }
        acr = acrValues.first { supportedACRValues.contains($0) }
    }

    /// A space-separated parameter's values.
    func words(_ name: String) -> [String] {
        (query[name] ?? "").split(separator: " ").map(String.init)
    }
}

extension SimulatedProviderState {
    /// The registered redirect URI, or, when it is a loopback `http` one, the same with any port
    /// (RFC 8252 §7.3: the client picks the port per request), unless the configuration matches
    /// loopback ports exactly. The same rule serves sign-in and post-logout redirect URIs.
    static func redirectMatches(_ requested: String, registered: URL, configuration: SimulatedProviderConfiguration) -> Bool {
        if requested == registered.absoluteString { return true }
        guard !configuration.matchesLoopbackPortsExactly, var candidate = URLComponents(string: requested),
            var expected = URLComponents(url: registered, resolvingAgainstBaseURL: false),
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
