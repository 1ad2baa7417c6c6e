public import Foundation
public import SessionKitJOSE

/// How a ``SimulatedProvider`` presents itself: its issuer, the one client it knows, and its token lifetimes.
///
/// The defaults follow the 1pass.dev profile on a host of its own, so a test that changes nothing
/// gets a provider shaped like the reference one.
public struct SimulatedProviderConfiguration: Sendable, Equatable {
    /// The issuer identifier; every endpoint lives under it and id_tokens carry it as `iss`.
    public var issuer: URL
    /// The public client the provider accepts.
    public var clientID: String
    /// The redirect URI registered for ``clientID``.
    public var redirectURI: URL
    /// Extra audiences added to every id_token; when not empty, `aud` becomes an array and `azp` is set.
    public var additionalAudiences: [String]
    /// How long an access token (and the `expires_in` it is announced with) lasts.
    public var accessTokenLifetime: Duration
    /// How long an id_token lasts (`exp` - `iat`).
    public var idTokenLifetime: Duration
    /// How long a refresh token may be used after it was issued; `nil` means until it is rotated or revoked.
    public var refreshTokenLifetime: Duration?
    /// How long after a rotation the refresh token it replaced may still be presented once more;
    /// `nil` (the default) means never: any replay revokes the chain.
    ///
    /// A client killed after the provider rotated its token, but before it stored the new one,
    /// holds only the replaced token. Real providers forgive that replay for a short while
    /// (django-oauth-toolkit's `REFRESH_TOKEN_GRACE_PERIOD_SECONDS`): within the period, presenting
    /// the immediately previous token of a chain answers with another rotation of the same chain,
    /// and the token it replaced stays the previous one. Any older token is still reuse.
    public var refreshTokenReuseGracePeriod: Duration?
    /// How long an authorization code may be exchanged after it was issued.
    public var authorizationCodeLifetime: Duration
    /// How long a device-bound key lasts.
    public var deviceKeyLifetime: Duration
    /// How long a retired signing key stays in the JWKS after ``SimulatedProvider/rotateSigningKey(retainPreviousFor:)``.
    public var signingKeyGracePeriod: Duration
    /// How long a scripted timeout keeps the caller waiting (on the injected clock) before it fails.
    public var timeoutDeadline: Duration
    /// Whether a refresh hands out a new refresh token (and retires the presented one).
    public var rotatesRefreshTokens: Bool
    /// Whether a refresh response carries a new id_token.
    public var issuesIDTokenOnRefresh: Bool
    /// Whether the authorization callback carries `iss` (RFC 9207).
    public var includesIssuerInCallback: Bool
    /// The post-logout redirect URIs registered for ``clientID`` (RP-Initiated Logout 1.0 §3),
    /// matched like ``redirectURI``: a loopback one on any port unless
    /// ``matchesLoopbackPortsExactly``.
    public var postLogoutRedirectURIs: [URL]
    /// Whether a registered loopback redirect URI (`http://127.0.0.1/…`, `http://[::1]/…`), for
    /// sign-in and after logout, matches only with the port it was registered with, as most
    /// providers do (idpyoidc 5.0.0 among them). Off (the default), it matches on any port, as RFC
    /// 8252 §7.3 asks and django-oauth-toolkit 3.4 does for both: a `LoopbackPresenter` on an
    /// ephemeral port is accepted. On, an end-session request from one is refused, and the browser
    /// never comes back.
    public var matchesLoopbackPortsExactly: Bool
    /// The `acr` values the provider can satisfy; a request's first `acr_values` entry among them
    /// is the `acr` its id_token carries (none when no requested value is among them).
    public var supportedACRValues: [String]
    /// Whether id_tokens carry `auth_time` even when the request had no `max_age`.
    public var alwaysIncludesAuthTime: Bool
    /// How long a device code (RFC 8628) may be polled with after it was issued (`expires_in`).
    public var deviceCodeLifetime: Duration
    /// The device polling interval announced (`interval`); a poll sooner than it after the
    /// previous one is answered `slow_down`, and the interval grows by 5 s.
    public var devicePollingInterval: Duration
    /// Whether a sign-in gets a refresh token only when its granted scope includes
    /// `offline_access` (OIDC Core §11), as many providers decide; off, every sign-in gets one.
    public var refreshTokensRequireOfflineAccess: Bool
    /// Whether an authorization request's `offline_access` scope is ignored unless its `prompt`
    /// includes `consent`, as OpenID Connect Core §11 requires of a provider with no earlier
    /// consent on record. With ``refreshTokensRequireOfflineAccess``, such a sign-in gets no
    /// refresh token.
    public var ignoresOfflineAccessWithoutConsent: Bool
    /// Whether the device authorization grant's token response carries an id_token; some real
    /// providers (django-oauth-toolkit 3.4) issue none for it.
    public var issuesIDTokenForDeviceGrant: Bool
    /// The algorithm id_tokens are signed with: RS256 (the 1pass.dev profile) or ES256, with a
    /// P-256 key. The discovery document lists it, and ``SimulatedProvider/providerConfiguration()``
    /// expects it.
    public var idTokenSigningAlgorithm: JWSAlgorithm
    /// DPoP enforcement at the token endpoint; nil (the default) ignores proofs and issues
    /// `Bearer` tokens.
    public var dpop: SimulatedProviderDPoP? = nil
    /// A protected resource served at its own origin (see ``SimulatedResourceServer``); nil (the
    /// default) serves none.
    public var resourceServer: SimulatedResourceServer? = nil
    /// How long the secret of a dynamically registered client lasts (`client_secret_expires_at`,
    /// RFC 7591 §3.2.1); nil (the default) issues secrets that never expire.
    public var registeredSecretLifetime: Duration? = nil
    /// Whether a read of a registered client's configuration (RFC 7592 §2.1, which lets the
    /// provider rotate the secret there) issues a new secret, with a fresh
    /// ``registeredSecretLifetime``, once the old one has expired; false (the default) answers the
    /// expired secret as it is.
    public var rotatesExpiredSecretOnRead = false

    /// Creates a configuration; every parameter has the 1pass.dev-shaped default.
    public init(
        issuer: URL = URL(string: "https://sim.1pass.test")!,
        clientID: String = "sim-client",
        redirectURI: URL = URL(string: "com.example.app://oauth/callback")!,
        additionalAudiences: [String] = [],
        accessTokenLifetime: Duration = .seconds(3600),
        idTokenLifetime: Duration = .seconds(3600),
        refreshTokenLifetime: Duration? = nil,
        authorizationCodeLifetime: Duration = .seconds(60),
        deviceKeyLifetime: Duration = .seconds(3600),
        signingKeyGracePeriod: Duration = .seconds(86_400),
        timeoutDeadline: Duration = .seconds(30),
        rotatesRefreshTokens: Bool = true,
        issuesIDTokenOnRefresh: Bool = true,
        includesIssuerInCallback: Bool = true,
        refreshTokenReuseGracePeriod: Duration? = nil,
        postLogoutRedirectURIs: [URL] = [URL(string: "com.example.app://oauth/logged-out")!],
        supportedACRValues: [String] = ["urn:sessionkit:sim:pwd", "urn:sessionkit:sim:mfa"],
        alwaysIncludesAuthTime: Bool = false,
        deviceCodeLifetime: Duration = .seconds(600),
        devicePollingInterval: Duration = .seconds(5),
        refreshTokensRequireOfflineAccess: Bool = false,
        ignoresOfflineAccessWithoutConsent: Bool = false,
        issuesIDTokenForDeviceGrant: Bool = true,
        matchesLoopbackPortsExactly: Bool = false,
        idTokenSigningAlgorithm: JWSAlgorithm = .rs256
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.redirectURI = redirectURI
        self.additionalAudiences = additionalAudiences
        self.accessTokenLifetime = accessTokenLifetime
        self.idTokenLifetime = idTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.authorizationCodeLifetime = authorizationCodeLifetime
        self.deviceKeyLifetime = deviceKeyLifetime
        self.signingKeyGracePeriod = signingKeyGracePeriod
        self.timeoutDeadline = timeoutDeadline
        self.rotatesRefreshTokens = rotatesRefreshTokens
        self.issuesIDTokenOnRefresh = issuesIDTokenOnRefresh
        self.includesIssuerInCallback = includesIssuerInCallback
        self.refreshTokenReuseGracePeriod = refreshTokenReuseGracePeriod
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.supportedACRValues = supportedACRValues
        self.alwaysIncludesAuthTime = alwaysIncludesAuthTime
        self.deviceCodeLifetime = deviceCodeLifetime
        self.devicePollingInterval = devicePollingInterval
        self.refreshTokensRequireOfflineAccess = refreshTokensRequireOfflineAccess
        self.ignoresOfflineAccessWithoutConsent = ignoresOfflineAccessWithoutConsent
        self.issuesIDTokenForDeviceGrant = issuesIDTokenForDeviceGrant
        self.matchesLoopbackPortsExactly = matchesLoopbackPortsExactly
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
    }

    /// The issuer as it appears in `iss` and the discovery document (no trailing slash).
    var issuerString: String {
        var text = issuer.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    /// The absolute URL of an endpoint path under the issuer.
    func url(for path: String) -> String {
        issuerString + path
    }
}

extension Duration {
    /// The duration in seconds as a `TimeInterval`, for arithmetic with wall-clock dates.
    var simulatedProviderSeconds: TimeInterval {
        let parts = components
        return TimeInterval(parts.seconds) + TimeInterval(parts.attoseconds) / 1e18
    }
}
