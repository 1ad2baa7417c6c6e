/// Which of the provider's endpoints a request is for, as a ``RequestMiddleware`` sees it.
///
/// A struct of static members rather than an enum, so a later endpoint is a new member and no
/// middleware's `switch` breaks; compare with `==` or switch with a `default`. The ``name`` is
/// stable and safe to log.
public struct ProviderEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The stable name, e.g. `token`.
    public let name: String

    private init(_ name: String) {
        self.name = name
    }

    /// The token endpoint (RFC 6749 §3.2): code exchange, refresh, device-code polls.
    public static let token = ProviderEndpoint("token")
    /// The revocation endpoint (RFC 7009).
    public static let revocation = ProviderEndpoint("revocation")
    /// The UserInfo endpoint (OpenID Connect Core §5.3).
    public static let userInfo = ProviderEndpoint("userinfo")
    /// The device authorization endpoint (RFC 8628 §3.1).
    public static let deviceAuthorization = ProviderEndpoint("device_authorization")
    /// The app disconnect endpoint (1pass.dev, `DELETE`).
    public static let disconnect = ProviderEndpoint("disconnect")
    /// The signing keys (`jwks_uri`).
    public static let keySet = ProviderEndpoint("jwks")
    /// The guest bootstrap (``ProviderConfiguration/anonymousBootstrap``).
    public static let anonymousBootstrap = ProviderEndpoint("anonymous_bootstrap")

    /// The endpoints at which a client authenticates (RFC 6749 §2.3, RFC 7009 §2.1, RFC 8628
    /// §3.1): token, revocation and device authorization.
    public static let clientAuthenticated: Set<ProviderEndpoint> = [.token, .revocation, .deviceAuthorization]

    /// The stable name.
    public var description: String { name }
}
