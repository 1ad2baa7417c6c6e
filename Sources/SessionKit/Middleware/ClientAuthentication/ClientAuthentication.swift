public import Foundation
public import SessionKitCore

/// How the session authenticates its client at the provider's token, revocation and device
/// authorization endpoints: ``none`` (the default, a public client), a client secret
/// (``clientSecretBasic(_:)``, ``clientSecretPost(_:)``) or a private key (``privateKeyJWT(_:audience:)``).
///
/// The session turns it into one ``RequestMiddleware`` per method it uses, innermost in the chain
/// (after ``SessionConfiguration/requestMiddleware``), so every retry a middleware makes carries
/// fresh authentication. The method for each endpoint follows the provider's metadata (RFC 8414
/// §2): the configured one when the endpoint's `*_auth_methods_supported` lists it or the
/// provider lists nothing; otherwise another method the same credential can use that it lists
/// (a secret works for both secret methods), so a revocation endpoint that takes only
/// `client_secret_post` still hears about a sign-out; otherwise the configured one, and the
/// provider's answer says the rest. ``check(against:)`` refuses a configuration whose token
/// endpoint lists methods but not this one, before anything is sent.
///
/// The secret and the key are never rendered: `description`, `dump` and errors name the method only.
///
/// A client secret in an app that ships to people's devices is not a secret: anyone can read it
/// from the binary. Providers such as Google issue "installed app" (desktop) clients a
/// `client_secret` and require it at the token endpoint all the same. Configure it like any other
/// (``clientSecretPost(_:)`` or ``clientSecretBasic(_:)``): it satisfies the provider, and it
/// protects nothing. PKCE, the exact redirect URI and the verified id_token are what keep the
/// sign-in safe; a leaked "installed app" secret lets no one redeem another person's code.
public struct ClientAuthentication: Sendable, CustomStringConvertible, CustomReflectable {
    enum Credential: Sendable {
        case none
        case secret(Secret)
        case key(ClientAssertionKey, audience: ClientAssertionAudience)
    }

    /// The configured method.
    public let method: ClientAuthenticationMethod
    let credential: Credential

    /// No client authentication: a public client (RFC 6749 §2.1), the default.
    public static let none = ClientAuthentication(method: .none, credential: .none)

    /// The secret in HTTP Basic authentication, id and secret form-encoded (RFC 6749 §2.3.1).
    public static func clientSecretBasic(_ secret: Secret) -> ClientAuthentication {
        ClientAuthentication(method: .clientSecretBasic, credential: .secret(secret))
    }

    /// The secret in the request body (RFC 6749 §2.3.1).
    public static func clientSecretPost(_ secret: Secret) -> ClientAuthentication {
        ClientAuthentication(method: .clientSecretPost, credential: .secret(secret))
    }

    /// Assertions signed with `key` (RFC 7523 §2.2, OpenID Connect Core §9), for `audience`.
    public static func privateKeyJWT(_ key: ClientAssertionKey, audience: ClientAssertionAudience = .tokenEndpoint)
        -> ClientAuthentication
    {
        ClientAuthentication(method: .privateKeyJWT, credential: .key(key, audience: audience))
    }

    /// The methods this credential can authenticate with, the configured one first.
    var usableMethods: [ClientAuthenticationMethod] {
        switch credential {
        case .none: [.none]
        case .secret: method == .clientSecretBasic ? [.clientSecretBasic, .clientSecretPost] : [.clientSecretPost, .clientSecretBasic]
        case .key: [.privateKeyJWT]
        }
    }

    /// The method to use at an endpoint whose metadata lists `supported` (`nil`: lists nothing).
    public func method(supported: [String]?) -> ClientAuthenticationMethod {
        guard let supported else { return method }
        return usableMethods.first { supported.contains($0.rawValue) } ?? method
    }

    /// Refuses a provider whose token endpoint lists its methods without this one
    /// (``ConfigurationError/unsupportedClientAuthentication(_:)``).
    ///
    /// A public client (``none``) passes whatever the list says: many providers that accept public
    /// clients list only their confidential methods (django-oauth-toolkit, idpyoidc), and a client
    /// with no credential has no other method to fall back on; the provider's answer decides.
    public func check(against provider: ProviderConfiguration) throws(ConfigurationError) {
        guard method != .none, let supported = provider.tokenEndpointAuthMethods else { return }
        guard supported.contains(method.rawValue) else { throw .unsupportedClientAuthentication(method.rawValue) }
    }

    /// The middleware that authenticates the client at `provider`'s endpoints, one per method used;
    /// empty for ``none``. `now` dates `private_key_jwt` assertions.
    public func middleware(for provider: ProviderConfiguration, now: @escaping @Sendable () -> Date) -> [any RequestMiddleware] {
        let tokenMethod = method(supported: provider.tokenEndpointAuthMethods)
        // RFC 8414 §2: revocation names its own methods; without them, the token endpoint's apply.
        let revocationMethod = method(supported: provider.revocationEndpointAuthMethods ?? provider.tokenEndpointAuthMethods)
        var endpointsByMethod: [ClientAuthenticationMethod: Set<ProviderEndpoint>] = [:]
        endpointsByMethod[tokenMethod, default: []].formUnion([.token, .deviceAuthorization])
        endpointsByMethod[revocationMethod, default: []].insert(.revocation)
        var chain: [any RequestMiddleware] = []
        for candidate in usableMethods {
            guard let endpoints = endpointsByMethod[candidate] else { continue }
            switch (candidate, credential) {
            case (.clientSecretBasic, .secret(let secret)):
                chain.append(ClientSecretBasicAuthentication(clientID: provider.clientID, secret: secret, endpoints: endpoints))
            case (.clientSecretPost, .secret(let secret)):
                chain.append(ClientSecretPostAuthentication(clientID: provider.clientID, secret: secret, endpoints: endpoints))
            case (.privateKeyJWT, .key(let key, let audience)):
                chain.append(
                    PrivateKeyJWTAuthentication(
                        clientID: provider.clientID, key: key, audience: audience.value(for: provider), endpoints: endpoints, now: now))
            default:
                continue
            }
        }
        return chain
    }

    /// The method only.
    public var description: String { "ClientAuthentication(\(method.rawValue))" }
    /// The method only: `dump` shows no secret and no key.
    public var customMirror: Mirror { Mirror(self, children: ["method": method.rawValue], displayStyle: .struct) }
}

/// The `aud` of a `private_key_jwt` assertion: RFC 7523 §3 and OpenID Connect Core §9 name the
/// token endpoint; some providers (and FAPI 2.0) expect the issuer.
public struct ClientAssertionAudience: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case tokenEndpoint
        case issuer
        case custom(String)
    }

    let kind: Kind

    /// The provider's token endpoint URL (the default).
    public static let tokenEndpoint = ClientAssertionAudience(kind: .tokenEndpoint)
    /// The provider's issuer identifier.
    public static let issuer = ClientAssertionAudience(kind: .issuer)
    /// Exactly this value.
    public static func custom(_ value: String) -> ClientAssertionAudience { ClientAssertionAudience(kind: .custom(value)) }

    func value(for provider: ProviderConfiguration) -> String {
        switch kind {
        case .tokenEndpoint: provider.tokenEndpoint.absoluteString
        case .issuer: provider.issuer
        case .custom(let value): value
        }
    }

    /// Which audience, by kind.
    public var description: String {
        switch kind {
        case .tokenEndpoint: "tokenEndpoint"
        case .issuer: "issuer"
        case .custom(let value): value
        }
    }
}
