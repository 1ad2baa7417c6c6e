public import Foundation
public import SessionKitJOSE

/// Why a provider configuration was rejected at configuration time.
@nonexhaustive
public enum ConfigurationError: Error, Sendable, Hashable {
    /// Redirect URI schemes containing `_` are invalid on iOS.
    case invalidRedirectScheme(String)
    /// A URL the configuration needs is missing or not absolute.
    case invalidURL(String)
    /// The discovery document's `issuer` differs from the configured issuer.
    case issuerMismatch(expected: String, found: String)
    /// The discovery document could not be fetched or decoded.
    case discoveryFailed(String)
    /// The token endpoint lists its client authentication methods
    /// (`token_endpoint_auth_methods_supported`) and the configured one, named here, is not among them.
    case unsupportedClientAuthentication(String)
    /// The input is not an identifier issuer discovery can use (OpenID Connect Discovery §2.1).
    case invalidIdentifier(String)
    /// The WebFinger query (OpenID Connect Discovery §2) failed, or its answer named no usable issuer.
    case webFingerFailed(String)
}

/// Where a provider's endpoints are and who the app is to it.
public struct ProviderConfiguration: Sendable, Hashable {
    /// The issuer identifier; id_tokens must carry exactly this `iss`.
    public var issuer: String
    /// The app's OAuth client id; how the client authenticates, if at all, is
    /// ``SessionConfiguration/clientAuthentication``.
    public var clientID: String
    /// Where the provider sends the person back; the callback URL must match its scheme, host and path.
    public var redirectURI: URL
    /// The scopes asked for; `openid` is always among them.
    public var scopes: [String]
    /// The authorization endpoint the handoff opens.
    public var authorizationEndpoint: URL
    /// The token endpoint for code exchange and refresh.
    public var tokenEndpoint: URL
    /// Where the provider publishes its signing keys.
    public var jwksURI: URL
    /// RFC 7009 revocation; without it sign-out wipes locally and says the provider was not told.
    public var revocationEndpoint: URL?
    /// 1pass.dev device-bound key exchange.
    public var deviceKeyExchangeEndpoint: URL?
    /// 1pass.dev app disconnect (`DELETE`), already naming this client.
    public var disconnectEndpoint: URL?
    /// The UserInfo endpoint (OpenID Connect Core §5.3), for claims beyond the id_token's.
    public var userInfoEndpoint: URL?
    /// The end-session endpoint (OpenID Connect RP-Initiated Logout 1.0 §2), where sign-out can
    /// also end the provider's browser session.
    public var endSessionEndpoint: URL?
    /// The device authorization endpoint (RFC 8628 §3.1), for sign-in on a device whose browser
    /// cannot come back to the app.
    public var deviceAuthorizationEndpoint: URL?
    /// How guest sessions are bootstrapped from the device (1pass.dev's anonymous-first sign-in);
    /// `nil` when the provider offers none.
    public var anonymousBootstrap: AnonymousBootstrapProfile?
    /// The algorithms the provider's id_tokens may be signed with; a token with another `alg` is
    /// rejected (`bad_signature`). RS256 alone unless set (the 1pass.dev profile); discovery takes
    /// the document's `id_token_signing_alg_values_supported` among RS256 and ES256.
    public var idTokenSigningAlgorithms: Set<JWSAlgorithm> = [.rs256]
    /// Whether an id_token without `kid` is accepted when the key set holds exactly one key usable
    /// for its `alg` (OpenID Connect Core §10.1); with several such keys it is still refused with
    /// `missing_kid`. On for a discovered provider (``discover(issuer:clientID:redirectURI:scopes:revocationEndpoint:transport:)``),
    /// as the specification allows; off for the 1pass.dev profile, whose reference SDKs require a
    /// `kid`, and for a configuration built from explicit endpoints unless set.
    public var allowsMissingKeyID = false
    /// The dynamic client registration endpoint (RFC 7591 §3, OpenID Connect Dynamic Client
    /// Registration 1.0 §3), where ``ClientRegistrar`` registers the app; `nil` when the provider
    /// offers none.
    public var registrationEndpoint: URL?
    /// The client authentication methods the token endpoint takes
    /// (`token_endpoint_auth_methods_supported`, OpenID Connect Discovery §3); `nil` when the
    /// provider does not say. The device authorization endpoint takes the same (RFC 8628 §3.1).
    public var tokenEndpointAuthMethods: [String]?
    /// The client authentication methods the revocation endpoint takes
    /// (`revocation_endpoint_auth_methods_supported`, RFC 8414 §2); `nil` when the provider does
    /// not say, and then the token endpoint's apply.
    public var revocationEndpointAuthMethods: [String]?
    /// The DPoP proof algorithms the provider accepts (`dpop_signing_alg_values_supported`,
    /// RFC 9449 §5.1); `nil` when it does not say. ``DPoPPolicy/whenSupported`` turns DPoP on when
    /// it lists ES256.
    public var dpopSigningAlgorithms: [String]?

    /// Creates a configuration from explicit endpoints. Rejects a redirect scheme containing `_`.
    public init(
        issuer: String, clientID: String, redirectURI: URL, scopes: [String] = ["openid"],
        authorizationEndpoint: URL, tokenEndpoint: URL, jwksURI: URL, revocationEndpoint: URL? = nil,
        deviceKeyExchangeEndpoint: URL? = nil, disconnectEndpoint: URL? = nil, userInfoEndpoint: URL? = nil,
        endSessionEndpoint: URL? = nil, deviceAuthorizationEndpoint: URL? = nil,
        anonymousBootstrap: AnonymousBootstrapProfile? = nil
    ) throws(ConfigurationError) {
        // Foundation on Linux leaves `scheme` nil when it contains `_`: read the raw text too.
        let scheme = redirectURI.scheme ?? String(redirectURI.absoluteString.prefix { $0 != ":" })
        if scheme.contains("_") { throw .invalidRedirectScheme(scheme) }
        guard !scheme.isEmpty, redirectURI.absoluteString.contains(":") else {
            throw .invalidURL("redirect URI has no scheme")
        }
        self.issuer = issuer
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.scopes = scopes.contains("openid") ? scopes : ["openid"] + scopes
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.jwksURI = jwksURI
        self.revocationEndpoint = revocationEndpoint
        self.deviceKeyExchangeEndpoint = deviceKeyExchangeEndpoint
        self.disconnectEndpoint = disconnectEndpoint
        self.userInfoEndpoint = userInfoEndpoint
        self.endSessionEndpoint = endSessionEndpoint
        self.deviceAuthorizationEndpoint = deviceAuthorizationEndpoint
        self.anonymousBootstrap = anonymousBootstrap
    }

    /// The 1pass.dev ("Sign in with logi") profile: fixed paths under the issuer, scopes
    /// `openid profile:basic email`, device keys, app disconnect and the guest bootstrap of the
    /// reference SDK (``AnonymousBootstrapProfile/onePass(issuer:)``).
    public static func onePass(
        clientID: String, redirectURI: URL, issuer: URL = URL(string: "https://api.1pass.dev")!
    ) throws(ConfigurationError) -> ProviderConfiguration {
        let base = issuer.absoluteString.hasSuffix("/") ? String(issuer.absoluteString.dropLast()) : issuer.absoluteString
        func endpoint(_ path: String) throws(ConfigurationError) -> URL {
            guard let url = URL(string: base + path) else { throw .invalidURL(path) }
            return url
        }
        let encodedClient = clientID.addingPercentEncoding(withAllowedCharacters: FormEncoding.unreserved) ?? clientID
        return try ProviderConfiguration(
            issuer: base, clientID: clientID, redirectURI: redirectURI, scopes: ["openid", "profile:basic", "email"],
            authorizationEndpoint: try endpoint("/oauth/authorize"), tokenEndpoint: try endpoint("/oauth/token"),
            jwksURI: try endpoint("/.well-known/jwks.json"), revocationEndpoint: try endpoint("/oauth/revoke"),
            deviceKeyExchangeEndpoint: try endpoint("/api/v1/me/device_keys/exchange"),
            disconnectEndpoint: try endpoint("/api/v1/me/connected_apps/\(encodedClient)"),
            anonymousBootstrap: .onePass(issuer: try endpoint("")))
    }

    /// Whether `url` is a callback for this configuration: same scheme, host and path as the redirect URI.
    public func isCallback(_ url: URL) -> Bool {
        func parts(_ url: URL) -> (String?, String?, String) {
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let path = components?.percentEncodedPath ?? ""
            return (components?.scheme?.lowercased(), components?.host?.lowercased(), path.isEmpty ? "/" : path)
        }
        return parts(url) == parts(redirectURI)
    }
}
