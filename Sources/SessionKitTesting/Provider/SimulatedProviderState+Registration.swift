import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// A client registered through ``SimulatedProviderEndpoint/registration``.
    struct RegisteredClient {
        let clientID: String
        var secret: String?
        var secretExpiresAt: Date?
        let issuedAt: Date
        let registrationAccessToken: String
        let redirectURIs: [String]
        let postLogoutRedirectURIs: [String]
        let grantTypes: [String]
        let responseTypes: [String]
        let method: String
        let applicationType: String
    }

    /// `POST /oauth/register` (RFC 7591 §3): checks the metadata as OpenID Connect Dynamic Client
    /// Registration §2 and RFC 7591 §2 say, then registers a client with a secret (for a secret
    /// method), a registration access token and a client configuration URI.
    mutating func registrationAnswer(_ request: HTTPRequest, now: Date) -> Answer {
        guard Self.hasContentType(request, "application/json") else {
            return Self.error(400, "invalid_client_metadata", "the body must be application/json")
        }
        guard let object = (try? JSONSerialization.jsonObject(with: request.body ?? Data())) as? [String: Any] else {
            return Self.error(400, "invalid_client_metadata", "the body is not a JSON object")
        }
        let redirects = object["redirect_uris"] as? [String] ?? []
        let grantTypes = object["grant_types"] as? [String] ?? ["authorization_code"]
        let responseTypes = object["response_types"] as? [String] ?? ["code"]
        let method = object["token_endpoint_auth_method"] as? String ?? "client_secret_basic"
        let applicationType = object["application_type"] as? String ?? "web"
        let postLogout = object["post_logout_redirect_uris"] as? [String] ?? []
        func refuse(_ code: String, _ why: String) -> Answer {
            record(clientID: nil, error: code)
            return Self.error(400, code, why)
        }
        func record(clientID: String?, error: String?) {
            registrationRecords.append(
                SimulatedProviderRegistrationRecord(
                    clientID: clientID, redirectURIs: redirects, grantTypes: grantTypes, responseTypes: responseTypes,
                    tokenEndpointAuthMethod: object["token_endpoint_auth_method"] as? String,
                    applicationType: object["application_type"] as? String, error: error, receivedAt: now))
        }
        guard !redirects.isEmpty else { return refuse("invalid_redirect_uri", "redirect_uris is required") }
        for redirect in redirects + postLogout {
            guard Self.isRegistrableRedirect(redirect, applicationType: applicationType) else {
                return refuse("invalid_redirect_uri", "\(redirect) cannot be registered for a \(applicationType) client")
            }
        }
        guard ["native", "web"].contains(applicationType) else {
            return refuse("invalid_client_metadata", "application_type must be native or web")
        }
        guard ["none", "client_secret_basic", "client_secret_post"].contains(method) else {
            return refuse("invalid_client_metadata", "token_endpoint_auth_method \(method) is not supported")
        }
        // RFC 7591 §2.1: the code response type goes with the authorization code grant.
        guard !responseTypes.contains("code") || grantTypes.contains("authorization_code"),
            responseTypes.allSatisfy({ $0 == "code" })
        else { return refuse("invalid_client_metadata", "response_types and grant_types do not agree") }

        registrationCounter += 1
        let clientID = "sim-registered-\(registrationCounter)"
        let client = RegisteredClient(
            clientID: clientID, secret: method == "none" ? nil : (try? RandomToken.generate()) ?? "secret-\(registrationCounter)",
            secretExpiresAt: configuration.registeredSecretLifetime.map { now.addingTimeInterval($0.simulatedProviderSeconds) },
            issuedAt: now, registrationAccessToken: (try? RandomToken.generate()) ?? "rat-\(registrationCounter)",
            redirectURIs: redirects, postLogoutRedirectURIs: postLogout, grantTypes: grantTypes, responseTypes: responseTypes,
            method: method, applicationType: applicationType)
        registeredClients[clientID] = client
        record(clientID: clientID, error: nil)
        return Answer(Self.json(201, registrationDocument(client)))
    }

    /// `GET` (RFC 7592 §2.1) and `DELETE` (§2.3) `/oauth/register/{client_id}` with the
    /// registration access token.
    mutating func clientConfigurationAnswer(_ request: HTTPRequest, clientID: String, now: Date) -> Answer {
        guard let client = registeredClients[clientID], let token = Self.bearerToken(request),
            token == client.registrationAccessToken
        else {
            // RFC 7592 §2.1: an unknown client and a wrong token look the same.
            return Self.bearerError("invalid_token", "the registration access token is not valid for this client")
        }
        if request.method == "DELETE" {
            registeredClients[clientID] = nil
            for (grantID, grant) in grants.sorted(by: { $0.key < $1.key }) where grant.clientID == clientID && !grant.isRevoked {
                revokeGrant(grantID, reason: .administrative)
            }
            return Answer(HTTPResponse(status: 204, headers: ["Cache-Control": "no-store"]))
        }
        if configuration.rotatesExpiredSecretOnRead, client.secret != nil, let expiry = client.secretExpiresAt, now >= expiry {
            var rotated = client
            rotated.secret = (try? RandomToken.generate()) ?? "secret-rotated-\(registrationCounter)"
            rotated.secretExpiresAt = configuration.registeredSecretLifetime.map { now.addingTimeInterval($0.simulatedProviderSeconds) }
            registeredClients[clientID] = rotated
            return Answer(Self.json(200, registrationDocument(rotated)))
        }
        return Answer(Self.json(200, registrationDocument(client)))
    }

    private func registrationDocument(_ client: RegisteredClient) -> SimulatedProviderJSON {
        var members: [(String, SimulatedProviderJSON)] = [("client_id", .string(client.clientID))]
        if let secret = client.secret {
            members.append(("client_secret", .string(secret)))
            members.append(("client_secret_expires_at", .integer(client.secretExpiresAt.map { Int($0.timeIntervalSince1970) } ?? 0)))
        }
        members += [
            ("client_id_issued_at", .integer(Int(client.issuedAt.timeIntervalSince1970))),
            ("registration_access_token", .string(client.registrationAccessToken)),
            (
                "registration_client_uri",
                .string(configuration.url(for: SimulatedProviderEndpoint.clientConfiguration.path + client.clientID))
            ),
            ("redirect_uris", .array(client.redirectURIs.map(SimulatedProviderJSON.string))),
            ("grant_types", .array(client.grantTypes.map(SimulatedProviderJSON.string))),
            ("response_types", .array(client.responseTypes.map(SimulatedProviderJSON.string))),
            ("token_endpoint_auth_method", .string(client.method)),
            ("application_type", .string(client.applicationType)),
        ]
        if !client.postLogoutRedirectURIs.isEmpty {
            members.append(("post_logout_redirect_uris", .array(client.postLogoutRedirectURIs.map(SimulatedProviderJSON.string))))
        }
        return .object(members)
    }

    /// OpenID Connect Dynamic Client Registration §2 (`application_type`): a native client registers
    /// a custom scheme or an `http` loopback URI, a web client `https` URIs; neither a fragment.
    static func isRegistrableRedirect(_ text: String, applicationType: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(), components.fragment == nil
        else { return false }
        let host = components.host?.lowercased() ?? ""
        let loopback = host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host == "::1"
        if applicationType == "native" {
            return scheme == "http" ? loopback : scheme != "https"
        }
        return scheme == "https" && !loopback
    }

    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let header = request.header("Authorization"), header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            return nil
        }
        return String(header.dropFirst(7))
    }

    // MARK: Clients at the other endpoints

    /// Whether `clientID` is the configured public client or a registered one.
    func isKnownClient(_ clientID: String?) -> Bool {
        guard let clientID else { return false }
        return clientID == configuration.clientID || registeredClients[clientID] != nil
    }

    /// Whether `redirect` is registered for `clientID`.
    func isRegisteredRedirect(_ redirect: String, for clientID: String) -> Bool {
        if let client = registeredClients[clientID] { return client.redirectURIs.contains(redirect) }
        return Self.redirectMatches(redirect, registered: configuration.redirectURI, configuration: configuration)
    }

    /// The refusal when the request does not authenticate `form`'s client as its registration
    /// says (RFC 6749 §2.3.1: Basic with form-encoded id and secret, or the secret in the body;
    /// an expired secret authenticates nothing, RFC 7591 §3.2.1); nil when it does, or for the
    /// configured public client.
    func clientAuthenticationRefusal(_ request: HTTPRequest, form: [String: String], now: Date) -> Answer? {
        let basic = Self.basicCredentials(request)
        let clientID = form["client_id"] ?? basic?.id
        guard isKnownClient(clientID), let clientID else { return Self.error(401, "invalid_client", "unknown client") }
        guard let client = registeredClients[clientID] else { return nil }
        guard let secret = client.secret else { return nil }
        if let expiry = client.secretExpiresAt, now >= expiry {
            return Self.error(401, "invalid_client", "the client secret has expired")
        }
        let presented: String? =
            switch client.method {
            case "client_secret_basic": basic?.id == clientID ? basic?.secret : nil
            case "client_secret_post": basic == nil ? form["client_secret"] : nil
            default: nil
            }
        guard presented == secret else {
            return Self.error(
                401, "invalid_client", "client authentication failed", headers: ["WWW-Authenticate": "Basic realm=\"simulated\""])
        }
        return nil
    }

    /// The id and secret of a `Basic` `Authorization` header, each form-decoded (RFC 6749 §2.3.1).
    static func basicCredentials(_ request: HTTPRequest) -> (id: String, secret: String)? {
        guard let header = request.header("Authorization"), header.count > 6, header.prefix(6).lowercased() == "basic ",
            let data = Data(base64Encoded: String(header.dropFirst(6))), let text = String(data: data, encoding: .utf8),
            let colon = text.firstIndex(of: ":")
        else { return nil }
        func decode(_ part: Substring) -> String? {
            part.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        guard let id = decode(text[..<colon]), let secret = decode(text[text.index(after: colon)...]) else { return nil }
        return (id, secret)
    }

    // MARK: WebFinger

    /// `GET /.well-known/webfinger` (RFC 7033 §4): for a resource on this host, the issuer
    /// relation (OpenID Connect Discovery §2), as ``webFingerAnswer`` says.
    func webFingerAnswer(_ request: HTTPRequest) -> Answer {
        let items = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard let resource = items.first(where: { $0.name == "resource" })?.value, !resource.isEmpty else {
            return Self.error(400, "invalid_request", "resource is required")
        }
        let host = configuration.issuer.host?.lowercased() ?? ""
        let resourceHost: String? =
            resource.lowercased().hasPrefix("acct:")
            ? resource.split(separator: "@").last.map { String($0).lowercased() }
            : URLComponents(string: resource)?.host?.lowercased()
        guard resourceHost == host else { return Self.error(404, "not_found", "no such resource here") }
        let relations = items.filter { $0.name == "rel" }.compactMap(\.value)
        var links: [SimulatedProviderJSON] = []
        let href: String? =
            switch webFingerAnswer {
            case .issuer(let other): other
            case .noIssuerLink: nil
            default: configuration.issuerString
            }
        if let href, relations.isEmpty || relations.contains(IssuerIdentifier.issuerRelation) {
            links.append(.object([("rel", .string(IssuerIdentifier.issuerRelation)), ("href", .string(href))]))
        }
        var members: [(String, SimulatedProviderJSON)] = [("subject", .string(resource)), ("links", .array(links))]
        if webFingerAnswer == .unknownMembers {
            members.append(("dummy", .string("foobar")))
            members.append(("x-simulated", .object([("nested", .array([.integer(1), .bool(true)]))])))
        }
        return Answer(Self.json(200, .object(members), headers: ["Content-Type": "application/jrd+json"]))
    }
}
