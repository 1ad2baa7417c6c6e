public import Foundation

/// What the app asks to be registered as (RFC 7591 §2, OpenID Connect Dynamic Client Registration
/// 1.0 §2): a native OpenID client of the authorization code flow, by default authenticating with
/// the secret the provider issues (`client_secret_basic`).
///
/// Nothing here is secret; it is sent as the registration request's JSON body.
public struct ClientMetadata: Sendable, Hashable {
    /// The redirect URIs the provider may send the browser back to (`redirect_uris`); the first is
    /// the one sign-ins use.
    public var redirectURIs: [URL]
    /// The grant types the client will use (`grant_types`).
    public var grantTypes: [String]
    /// The response types the client will use (`response_types`).
    public var responseTypes: [String]
    /// How the client will authenticate at the token endpoint (`token_endpoint_auth_method`):
    /// ``ClientAuthenticationMethod/clientSecretBasic``, ``ClientAuthenticationMethod/clientSecretPost``
    /// or ``ClientAuthenticationMethod/none``.
    public var tokenEndpointAuthMethod: ClientAuthenticationMethod
    /// `native` (the default) or `web` (`application_type`, Dynamic Client Registration §2).
    public var applicationType: String
    /// A name to show the person (`client_name`).
    public var clientName: String?
    /// Where the provider may send the browser after logout (`post_logout_redirect_uris`,
    /// RP-Initiated Logout 1.0 §3.1).
    public var postLogoutRedirectURIs: [URL]
    /// The scopes the client may ask for (`scope`, RFC 7591 §2), space-separated on the wire.
    public var scopes: [String]?
    /// Contacts for the client (`contacts`).
    public var contacts: [String]

    /// A native code-flow client with the given redirect URIs.
    public init(
        redirectURIs: [URL], grantTypes: [String] = ["authorization_code", "refresh_token"], responseTypes: [String] = ["code"],
        tokenEndpointAuthMethod: ClientAuthenticationMethod = .clientSecretBasic, applicationType: String = "native",
        clientName: String? = nil, postLogoutRedirectURIs: [URL] = [], scopes: [String]? = nil, contacts: [String] = []
    ) {
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.responseTypes = responseTypes
        self.tokenEndpointAuthMethod = tokenEndpointAuthMethod
        self.applicationType = applicationType
        self.clientName = clientName
        self.postLogoutRedirectURIs = postLogoutRedirectURIs
        self.scopes = scopes
        self.contacts = contacts
    }

    /// The registration request's JSON body, members in a stable order.
    var jsonBody: Data {
        var object: [String: Any] = [
            "redirect_uris": redirectURIs.map(\.absoluteString),
            "grant_types": grantTypes,
            "response_types": responseTypes,
            "token_endpoint_auth_method": tokenEndpointAuthMethod.rawValue,
            "application_type": applicationType,
        ]
        if let clientName { object["client_name"] = clientName }
        if !postLogoutRedirectURIs.isEmpty { object["post_logout_redirect_uris"] = postLogoutRedirectURIs.map(\.absoluteString) }
        if let scopes { object["scope"] = scopes.joined(separator: " ") }
        if !contacts.isEmpty { object["contacts"] = contacts }
        // Strings and arrays of strings only: serialization cannot fail.
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }
}
