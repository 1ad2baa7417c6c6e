public import Foundation
import SessionKitJOSE

extension ProviderConfiguration {
    /// Builds a configuration for any OpenID provider from its discovery document
    /// (`{issuer}/.well-known/openid-configuration`, OpenID Connect Discovery 1.0 §4).
    ///
    /// The document's `issuer` must equal `issuer` exactly (§4.3): a document that names another
    /// issuer could steer tokens to endpoints the configured issuer never vouched for. The
    /// authorization, token and JWKS endpoints come from the document, and so do the optional
    /// UserInfo (`userinfo_endpoint`), end-session (`end_session_endpoint`) and device authorization
    /// (`device_authorization_endpoint`) endpoints when it names them. Many providers leave the
    /// RFC 7009 revocation endpoint out; `revocationEndpoint` is used then (the document's wins when
    /// it names one). The id_token signing algorithms are those of the document's
    /// `id_token_signing_alg_values_supported` that SessionKit verifies (RS256, ES256); RS256 when
    /// it names neither. The client authentication methods of the token and revocation endpoints
    /// (`token_endpoint_auth_methods_supported`, `revocation_endpoint_auth_methods_supported`)
    /// are kept for ``ClientAuthentication``, and the registration endpoint
    /// (`registration_endpoint`) for ``ClientRegistrar``. An id_token without `kid` is accepted when the key set holds exactly one
    /// key for its `alg` (OpenID Connect Core §10.1, ``allowsMissingKeyID``).
    ///
    /// Every URL must be `https`, except on a loopback host (`127.0.0.0/8`, `localhost`, `::1`),
    /// where plain `http` is accepted for local test providers. The redirect URI is checked first,
    /// so a scheme containing `_` fails before anything is fetched.
    ///
    /// - Parameters:
    ///   - issuer: The issuer identifier, as id_tokens will carry it in `iss`.
    ///   - clientID: The app's client id (how it authenticates, if at all, is
    ///     ``SessionConfiguration/clientAuthentication``).
    ///   - redirectURI: Where the provider sends the person back.
    ///   - scopes: The scopes to ask for; `openid` is added when missing.
    ///   - revocationEndpoint: The revocation endpoint to use when the document names none.
    ///   - transport: Fetches the document; it must not follow redirects.
    public static func discover(
        issuer: String, clientID: String, redirectURI: URL, scopes: [String] = ["openid"], revocationEndpoint: URL? = nil,
        transport: any HTTPTransport
    ) async throws(ConfigurationError) -> ProviderConfiguration {
        // Foundation on Linux does not parse a scheme containing `_` (`scheme` is nil), so the raw
        // text before the first colon is checked too: the answer must not depend on the platform.
        let scheme = redirectURI.scheme ?? String(redirectURI.absoluteString.prefix { $0 != ":" })
        if scheme.contains("_") { throw .invalidRedirectScheme(scheme) }
        guard let issuerURL = URL(string: issuer) else { throw .invalidURL("issuer") }
        try requireSecure(issuerURL, name: "issuer")
        if let revocationEndpoint { try requireSecure(revocationEndpoint, name: "revocation endpoint") }
        guard issuerURL.query == nil, issuerURL.fragment == nil else {
            throw .invalidURL("issuer has a query or fragment")
        }

        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        guard let documentURL = URL(string: trimmed + "/.well-known/openid-configuration") else {
            throw .invalidURL("discovery document")
        }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(method: "GET", url: documentURL, headers: [("Accept", "application/json")]))
        } catch {
            throw .discoveryFailed(Self.phrase(for: error))
        }
        guard response.status == 200 else {
            throw .discoveryFailed("the discovery document answered HTTP \(response.status)")
        }
        let document = try DiscoveryDocument(decoding: response.body)
        guard document.issuer == issuer else {
            throw .issuerMismatch(expected: issuer, found: document.issuer)
        }
        var configuration = try ProviderConfiguration(
            issuer: issuer, clientID: clientID, redirectURI: redirectURI, scopes: scopes,
            authorizationEndpoint: try document.endpoint(\.authorizationEndpoint, "authorization_endpoint"),
            tokenEndpoint: try document.endpoint(\.tokenEndpoint, "token_endpoint"),
            jwksURI: try document.endpoint(\.jwksURI, "jwks_uri"),
            revocationEndpoint: try document.optionalEndpoint(\.revocationEndpoint, "revocation_endpoint") ?? revocationEndpoint,
            userInfoEndpoint: try document.optionalEndpoint(\.userInfoEndpoint, "userinfo_endpoint"),
            endSessionEndpoint: try document.optionalEndpoint(\.endSessionEndpoint, "end_session_endpoint"),
            deviceAuthorizationEndpoint: try document.optionalEndpoint(
                \.deviceAuthorizationEndpoint, "device_authorization_endpoint"))
        let verifiable = Set((document.idTokenSigningAlgorithms ?? []).map(JWSAlgorithm.init(rawValue:)))
            .intersection([.rs256, .es256])
        if !verifiable.isEmpty { configuration.idTokenSigningAlgorithms = verifiable }
        configuration.allowsMissingKeyID = true
        configuration.tokenEndpointAuthMethods = document.tokenEndpointAuthMethods
        configuration.revocationEndpointAuthMethods = document.revocationEndpointAuthMethods
        configuration.registrationEndpoint = try document.optionalEndpoint(\.registrationEndpoint, "registration_endpoint")
        configuration.dpopSigningAlgorithms = document.dpopSigningAlgorithms
        return configuration
    }

    /// `https`, or `http` on a loopback host; absolute, with a host.
    static func requireSecure(_ url: URL, name: String) throws(ConfigurationError) {
        guard let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            throw .invalidURL("\(name) is not an absolute URL")
        }
        switch scheme {
        case "https":
            return
        case "http" where isLoopback(host):
            return
        default:
            throw .invalidURL("\(name) must use https")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    private static func phrase(for error: TransportError) -> String {
        switch error {
        case .connectionFailed(let message): "the discovery document could not be fetched: \(message)"
        case .timedOut: "the discovery document did not arrive in time"
        case .responseTooLarge(let limit): "the discovery document is larger than \(limit) bytes"
        case .cancelled: "cancelled"
        }
    }
}

/// The fields of an OpenID Provider Metadata document that SessionKit uses.
private struct DiscoveryDocument: Decodable {
    var issuer: String
    var authorizationEndpoint: String?
    var tokenEndpoint: String?
    var jwksURI: String?
    var revocationEndpoint: String?
    var userInfoEndpoint: String?
    var endSessionEndpoint: String?
    var deviceAuthorizationEndpoint: String?
    var idTokenSigningAlgorithms: [String]?
    var tokenEndpointAuthMethods: [String]?
    var revocationEndpointAuthMethods: [String]?
    var registrationEndpoint: String?
    var dpopSigningAlgorithms: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case revocationEndpoint = "revocation_endpoint"
        case userInfoEndpoint = "userinfo_endpoint"
        case endSessionEndpoint = "end_session_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case idTokenSigningAlgorithms = "id_token_signing_alg_values_supported"
        case tokenEndpointAuthMethods = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethods = "revocation_endpoint_auth_methods_supported"
        case registrationEndpoint = "registration_endpoint"
        case dpopSigningAlgorithms = "dpop_signing_alg_values_supported"
    }

    init(decoding data: Data) throws(ConfigurationError) {
        do {
            self = try JSONDecoder().decode(DiscoveryDocument.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw .discoveryFailed("the discovery document has no \(key.stringValue)")
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            throw .discoveryFailed("the discovery document's \(context.codingPath[0].stringValue) has the wrong type")
        } catch {
            throw .discoveryFailed("the discovery document is not a JSON object")
        }
    }

    func endpoint(_ field: KeyPath<DiscoveryDocument, String?>, _ name: String) throws(ConfigurationError) -> URL {
        guard let url = try optionalEndpoint(field, name) else {
            throw .discoveryFailed("the discovery document has no \(name)")
        }
        return url
    }

    func optionalEndpoint(_ field: KeyPath<DiscoveryDocument, String?>, _ name: String) throws(ConfigurationError) -> URL? {
        guard let text = self[keyPath: field] else { return nil }
        guard let url = URL(string: text) else { throw .invalidURL("\(name) is not a URL") }
        try ProviderConfiguration.requireSecure(url, name: name)
        return url
    }
}
