public import Foundation
public import SessionKitCore

/// The client a provider registered for the app (RFC 7591 §3.2.1), as it is kept durably: its
/// `client_id`, the `client_secret` and when it expires, and the registration access token and
/// client configuration URI that read or delete it (RFC 7592).
///
/// The secret and the registration access token are secrets: `description`, `dump` and every
/// error name neither.
public struct ClientRegistration: Sendable, Hashable, Codable, CustomStringConvertible, CustomReflectable {
    /// The issuer of the provider that registered the client.
    public var issuer: String
    /// The issued client identifier (`client_id`).
    public var clientID: String
    /// The issued secret (`client_secret`), when the provider issued one.
    public var clientSecret: Secret?
    /// When the secret expires (`client_secret_expires_at`); `nil` when it never does (the wire's
    /// `0`) or no secret was issued.
    public var clientSecretExpiresAt: Date?
    /// When the client id was issued (`client_id_issued_at`), when the provider says.
    public var clientIDIssuedAt: Date?
    /// The token that reads and deletes the registration (`registration_access_token`, RFC 7592 §3).
    public var registrationAccessToken: Secret?
    /// Where the registration is read and deleted (`registration_client_uri`, RFC 7592 §3).
    public var registrationClientURI: URL?
    /// How the client authenticates at the token endpoint, as the provider registered it
    /// (`token_endpoint_auth_method`; the requested one when the answer does not say).
    public var tokenEndpointAuthMethod: ClientAuthenticationMethod
    /// The redirect URIs the provider registered.
    public var redirectURIs: [URL]

    /// A registration with the given parts.
    public init(
        issuer: String, clientID: String, clientSecret: Secret? = nil, clientSecretExpiresAt: Date? = nil, clientIDIssuedAt: Date? = nil,
        registrationAccessToken: Secret? = nil, registrationClientURI: URL? = nil,
        tokenEndpointAuthMethod: ClientAuthenticationMethod = .none, redirectURIs: [URL] = []
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.clientSecretExpiresAt = clientSecretExpiresAt
        self.clientIDIssuedAt = clientIDIssuedAt
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.redirectURIs = redirectURIs
    }

    /// Whether the secret has expired at `now` (RFC 7591 §3.2.1): the client must register again.
    /// A registration without a secret, or whose secret never expires, never has.
    public func isSecretExpired(at now: Date) -> Bool {
        guard clientSecret != nil, let expiry = clientSecretExpiresAt else { return false }
        return now >= expiry
    }

    /// The client authentication the issued credentials give: the registered method with the
    /// issued secret, through the existing middlewares; ``ClientAuthentication/none`` for a public
    /// registration (method `none`) or one without a secret.
    public var clientAuthentication: ClientAuthentication {
        guard let clientSecret else { return .none }
        switch tokenEndpointAuthMethod {
        case .clientSecretPost: return .clientSecretPost(clientSecret)
        case .clientSecretBasic: return .clientSecretBasic(clientSecret)
        default: return .none
        }
    }

    /// The client id, the issuer, the method, when the secret expires; never the secret or the token.
    public var description: String {
        let expiry = clientSecretExpiresAt.map { " secret expires \($0)" } ?? ""
        return "ClientRegistration(clientID: \(clientID), issuer: \(issuer), method: \(tokenEndpointAuthMethod)\(expiry))"
    }

    /// The parts that are not secret: `dump` shows neither the secret nor the registration access token.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "issuer": issuer, "clientID": clientID, "clientSecret": clientSecret == nil ? "nil" : "<redacted>",
                "clientSecretExpiresAt": clientSecretExpiresAt as Any,
                "registrationAccessToken": registrationAccessToken == nil ? "nil" : "<redacted>",
                "registrationClientURI": registrationClientURI as Any, "tokenEndpointAuthMethod": tokenEndpointAuthMethod.rawValue,
            ], displayStyle: .struct)
    }

    enum CodingKeys: String, CodingKey {
        case issuer, clientID, clientSecret, clientSecretExpiresAt, clientIDIssuedAt, registrationAccessToken, registrationClientURI
        case tokenEndpointAuthMethod, redirectURIs
    }

    /// Decodes a stored registration.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(String.self, forKey: .issuer)
        clientID = try container.decode(String.self, forKey: .clientID)
        clientSecret = try container.decodeIfPresent(Secret.self, forKey: .clientSecret)
        clientSecretExpiresAt = try container.decodeIfPresent(Date.self, forKey: .clientSecretExpiresAt)
        clientIDIssuedAt = try container.decodeIfPresent(Date.self, forKey: .clientIDIssuedAt)
        registrationAccessToken = try container.decodeIfPresent(Secret.self, forKey: .registrationAccessToken)
        registrationClientURI = try container.decodeIfPresent(URL.self, forKey: .registrationClientURI)
        tokenEndpointAuthMethod = ClientAuthenticationMethod(rawValue: try container.decode(String.self, forKey: .tokenEndpointAuthMethod))
        redirectURIs = try container.decodeIfPresent([URL].self, forKey: .redirectURIs) ?? []
    }

    /// Encodes the registration for a store.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(issuer, forKey: .issuer)
        try container.encode(clientID, forKey: .clientID)
        try container.encodeIfPresent(clientSecret, forKey: .clientSecret)
        try container.encodeIfPresent(clientSecretExpiresAt, forKey: .clientSecretExpiresAt)
        try container.encodeIfPresent(clientIDIssuedAt, forKey: .clientIDIssuedAt)
        try container.encodeIfPresent(registrationAccessToken, forKey: .registrationAccessToken)
        try container.encodeIfPresent(registrationClientURI, forKey: .registrationClientURI)
        try container.encode(tokenEndpointAuthMethod.rawValue, forKey: .tokenEndpointAuthMethod)
        try container.encode(redirectURIs, forKey: .redirectURIs)
    }
}

extension SessionConfiguration {
    /// Uses a registered client: its `client_id` in ``provider`` and its issued credentials in
    /// ``clientAuthentication``.
    ///
    /// The session authenticates with these credentials as they are; when the secret expires, its
    /// next authenticated request is refused. ``use(_:renewingWith:)`` renews it instead.
    public mutating func use(_ registration: ClientRegistration) {
        provider.clientID = registration.clientID
        clientAuthentication = registration.clientAuthentication
        registrationRenewal = nil
    }

    /// Uses a registered client, as ``use(_:)`` does, and keeps it current while the session runs.
    ///
    /// Before each request that authenticates the client, the session checks the secret's
    /// `client_secret_expires_at` (RFC 7591 §3.2.1) on its wall clock. Once it has expired, the
    /// session reads its registration with the registration access token (RFC 7592 §2.1), which
    /// may return a rotated secret, stores what the provider answered and goes on with the new
    /// secret, the person noticing nothing. When the provider has no client configuration
    /// endpoint for it or says the registration is gone, the session registers the app anew and
    /// stores the new registration; its grants belong to the old client id, so it ends with
    /// ``ClientRegistrationError/Code/clientReplaced`` (in ``ProviderError/clientRegistration(_:)``):
    /// make a new session from ``ClientRegistrar/currentRegistration()`` and sign in again. A
    /// renewal that fails otherwise (no answer, a store failure) is a transient error that keeps
    /// every credential.
    ///
    /// - Parameters:
    ///   - registration: The registration to start with, as the registrar returned it.
    ///   - registrar: Reads, registers and stores the registration; its store is where the
    ///     renewed registration is kept.
    public mutating func use(_ registration: ClientRegistration, renewingWith registrar: ClientRegistrar) {
        use(registration)
        registrationRenewal = RegistrationRenewal(registration: registration, registrar: registrar)
    }
}

/// What ``SessionConfiguration/use(_:renewingWith:)`` configured: the session builds its client
/// authentication from it.
struct RegistrationRenewal: Sendable {
    var registration: ClientRegistration
    var registrar: ClientRegistrar
}
