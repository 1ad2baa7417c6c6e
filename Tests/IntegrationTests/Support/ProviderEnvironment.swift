import Foundation
import SessionKit

/// One local OpenID provider started by `Scripts/providers/providers.sh start`, as described by
/// the variables `providers.sh env` exports. Tests for a provider whose variables are missing are
/// skipped, so `swift test` stays green on a machine without the providers.
struct ProviderEnvironment: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        /// django-oauth-toolkit: PKCE enforced, rotating refresh tokens with reuse protection,
        /// RFC 7009 revocation, signing-key rotation on request.
        case djangoOAuthToolkit
        /// oidc-provider-mock: no PKCE check, no rotation, no RFC 7009 endpoint.
        case oidcProviderMock
        /// idpyoidc 5.0.0 behind `Scripts/providers/idp_server.py`: DPoP at the token and UserInfo
        /// endpoints, `private_key_jwt`, dynamic registration, refresh token rotation.
        case idpyoidc
    }

    var kind: Kind
    var issuer: String
    var clientID: String
    var redirectURI: URL
    /// RFC 7009 endpoint to configure, since neither provider lists one in its discovery document.
    var revocationEndpoint: URL?
    /// DOT: the header that signs a request in as a user, without a login page.
    var userHeader: String?
    /// DOT: `POST` makes a new signing key active.
    var rotateKeyURL: URL?
    /// Mock: `POST {usersURL}/{sub}/revoke-tokens` revokes a user's tokens at the server.
    var usersURL: URL?
    /// DOT: the public client registered for the device authorization grant (one grant type per client).
    var deviceClientID: String?
    /// DOT: the device authorization endpoint, which its discovery document does not list.
    var deviceAuthorizationEndpoint: URL?
    /// A post-logout redirect URI the provider accepts for ``clientID``.
    var postLogoutRedirectURI: URL?
    /// DOT: a confidential client (authorization code) and its secret, for client authentication.
    var confidentialClient: (id: String, secret: Secret)?
    /// idpyoidc: a confidential client authenticating with `private_key_jwt`, and the PEM files of
    /// its RSA (RS256) and P-256 (ES256) keys with their `kid`s.
    var keyClient: KeyClient?
    /// idpyoidc: the dynamic client registration endpoint (RFC 7591).
    var registrationEndpoint: URL?

    struct KeyClient: Sendable {
        var id: String
        var rsaKeyFile: String
        var rsaKeyID: String
        var ecKeyFile: String
        var ecKeyID: String
    }

    var description: String {
        switch kind {
        case .djangoOAuthToolkit: "django-oauth-toolkit at \(issuer)"
        case .oidcProviderMock: "oidc-provider-mock at \(issuer)"
        case .idpyoidc: "idpyoidc at \(issuer)"
        }
    }

    /// Where the provider answers an access token with the user's claims.
    var userInfoEndpoint: URL {
        switch kind {
        case .djangoOAuthToolkit: URL(string: issuer + "/userinfo/")!
        case .oidcProviderMock, .idpyoidc: URL(string: issuer + "/userinfo")!
        }
    }

    static let djangoOAuthToolkit: ProviderEnvironment? = {
        let variables = ProcessInfo.processInfo.environment
        guard let issuer = variables["SESSIONKIT_DOT_ISSUER"], let clientID = variables["SESSIONKIT_DOT_CLIENT_ID"],
            let redirect = variables["SESSIONKIT_DOT_REDIRECT_URI"].flatMap(URL.init(string:)),
            let revocation = variables["SESSIONKIT_DOT_REVOCATION_ENDPOINT"].flatMap(URL.init(string:)),
            let header = variables["SESSIONKIT_DOT_USER_HEADER"],
            let rotate = variables["SESSIONKIT_DOT_ROTATE_KEY_URL"].flatMap(URL.init(string:))
        else { return nil }
        return ProviderEnvironment(
            kind: .djangoOAuthToolkit, issuer: issuer, clientID: clientID, redirectURI: redirect, revocationEndpoint: revocation,
            userHeader: header, rotateKeyURL: rotate, usersURL: nil, deviceClientID: variables["SESSIONKIT_DOT_DEVICE_CLIENT_ID"],
            deviceAuthorizationEndpoint: variables["SESSIONKIT_DOT_DEVICE_AUTHORIZATION_ENDPOINT"].flatMap(URL.init(string:)),
            postLogoutRedirectURI: variables["SESSIONKIT_DOT_POST_LOGOUT_REDIRECT_URI"].flatMap(URL.init(string:)),
            confidentialClient: variables["SESSIONKIT_DOT_CONFIDENTIAL_CLIENT_ID"].flatMap { id in
                variables["SESSIONKIT_DOT_CONFIDENTIAL_SECRET"].map { (id, Secret($0)) }
            })
    }()

    static let idpyoidc: ProviderEnvironment? = {
        let variables = ProcessInfo.processInfo.environment
        guard let issuer = variables["SESSIONKIT_IDP_ISSUER"], let clientID = variables["SESSIONKIT_IDP_CLIENT_ID"],
            let redirect = variables["SESSIONKIT_IDP_REDIRECT_URI"].flatMap(URL.init(string:)),
            let header = variables["SESSIONKIT_IDP_USER_HEADER"]
        else { return nil }
        var keyClient: KeyClient?
        if let id = variables["SESSIONKIT_IDP_CONFIDENTIAL_CLIENT_ID"], let rsa = variables["SESSIONKIT_IDP_CLIENT_KEY_FILE"],
            let rsaID = variables["SESSIONKIT_IDP_CLIENT_KEY_ID"], let ec = variables["SESSIONKIT_IDP_CLIENT_EC_KEY_FILE"],
            let ecID = variables["SESSIONKIT_IDP_CLIENT_EC_KEY_ID"]
        {
            keyClient = KeyClient(id: id, rsaKeyFile: rsa, rsaKeyID: rsaID, ecKeyFile: ec, ecKeyID: ecID)
        }
        // Its revocation endpoint is in discovery.
        return ProviderEnvironment(
            kind: .idpyoidc, issuer: issuer, clientID: clientID, redirectURI: redirect, revocationEndpoint: nil,
            userHeader: header, rotateKeyURL: nil, usersURL: nil, keyClient: keyClient,
            registrationEndpoint: variables["SESSIONKIT_IDP_REGISTRATION_ENDPOINT"].flatMap(URL.init(string:)))
    }()

    static let oidcProviderMock: ProviderEnvironment? = {
        let variables = ProcessInfo.processInfo.environment
        guard let issuer = variables["SESSIONKIT_MOCK_ISSUER"], let clientID = variables["SESSIONKIT_MOCK_CLIENT_ID"],
            let redirect = variables["SESSIONKIT_MOCK_REDIRECT_URI"].flatMap(URL.init(string:)),
            let users = variables["SESSIONKIT_MOCK_USERS_URL"].flatMap(URL.init(string:))
        else { return nil }
        // The mock checks no post-logout redirect URI; any the app would register does.
        return ProviderEnvironment(
            kind: .oidcProviderMock, issuer: issuer, clientID: clientID, redirectURI: redirect, revocationEndpoint: nil,
            userHeader: nil, rotateKeyURL: nil, usersURL: users, postLogoutRedirectURI: URL(string: "com.example.app:/logged-out"))
    }()
}
