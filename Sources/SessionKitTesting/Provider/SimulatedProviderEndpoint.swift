/// The HTTP endpoints a ``SimulatedProvider`` serves, each addressable for scripted faults and counters.
@nonexhaustive
public enum SimulatedProviderEndpoint: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `GET /.well-known/openid-configuration`.
    case discovery
    /// `GET /.well-known/jwks.json`.
    case jwks
    /// `POST /oauth/token` (authorization code and refresh token grants).
    case token
    /// `POST /oauth/revoke` (RFC 7009).
    case revocation
    /// `POST /api/v1/me/device_keys/exchange` (device-bound key, Bearer access token).
    case deviceKeyExchange
    /// `DELETE /api/v1/me/connected_apps/{client_id}` (app disconnect, Bearer device key).
    case disconnect
    /// `GET /oauth/userinfo` (OpenID Connect Core §5.3, Bearer access token).
    case userInfo
    /// `POST /oauth/device_authorization` (RFC 8628 §3.1).
    case deviceAuthorization
    /// `POST /api/v1/auth/anonymous_bootstrap` (a guest session from the device, no Bearer).
    case anonymousBootstrap
    /// `POST /oauth/register` (RFC 7591 §3, dynamic client registration).
    case registration
    /// `GET` and `DELETE /oauth/register/{client_id}` (RFC 7592, Bearer: the registration access token).
    case clientConfiguration
    /// `GET /.well-known/webfinger` (RFC 7033, OpenID Connect Discovery §2).
    case webFinger

    /// The path under the issuer; for ``disconnect`` and ``clientConfiguration`` the prefix the client
    /// id follows. ``webFinger`` is served at the host's root.
    public var path: String {
        switch self {
        case .discovery: "/.well-known/openid-configuration"
        case .jwks: "/.well-known/jwks.json"
        case .token: "/oauth/token"
        case .revocation: "/oauth/revoke"
        case .deviceKeyExchange: "/api/v1/me/device_keys/exchange"
        case .disconnect: "/api/v1/me/connected_apps/"
        case .userInfo: "/oauth/userinfo"
        case .deviceAuthorization: "/oauth/device_authorization"
        case .anonymousBootstrap: "/api/v1/auth/anonymous_bootstrap"
        case .registration: "/oauth/register"
        case .clientConfiguration: "/oauth/register/"
        case .webFinger: "/.well-known/webfinger"
        }
    }

    /// The method the endpoint accepts (for ``clientConfiguration``, which also takes `DELETE`, the reading one).
    public var method: String {
        switch self {
        case .discovery, .jwks, .userInfo, .clientConfiguration, .webFinger: "GET"
        case .token, .revocation, .deviceKeyExchange, .deviceAuthorization, .anonymousBootstrap, .registration: "POST"
        case .disconnect: "DELETE"
        }
    }

    /// Every method the endpoint accepts.
    var methods: Set<String> {
        self == .clientConfiguration ? ["GET", "DELETE"] : [method]
    }

    /// The endpoint's name, e.g. `token`.
    public var description: String { rawValue }

    /// The path of the authorization endpoint, which is not served over HTTP but through
    /// ``SimulatedProvider/authorize(_:subject:decision:)``.
    public static let authorizationPath = "/oauth/authorize"

    /// The path of the end-session endpoint (RP-Initiated Logout 1.0), which a browser visits:
    /// it is played through ``SimulatedProvider/endSession(_:)``, not served over HTTP.
    public static let endSessionPath = "/oauth/logout"

    /// The path of the page where a person enters a device sign-in's user code (RFC 8628 §3.3),
    /// played through ``SimulatedProvider/decideDeviceAuthorization(userCode:subject:decision:)``.
    public static let deviceVerificationPath = "/device"
}
