/// A client authentication method by its registered name (OpenID Connect Core §9, RFC 7591 §2):
/// what a discovery document lists in `token_endpoint_auth_methods_supported`.
///
/// A struct of static members rather than an enum, so a later method is a new member and no
/// `switch` breaks. The ``rawValue`` is the registered name and safe to log.
public struct ClientAuthenticationMethod: Sendable, Hashable, CustomStringConvertible {
    /// The registered name, e.g. `client_secret_basic`.
    public let rawValue: String

    /// A method by its registered name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// No client authentication: a public client sends only its `client_id`.
    public static let none = ClientAuthenticationMethod(rawValue: "none")
    /// The client secret in HTTP Basic authentication (RFC 6749 §2.3.1).
    public static let clientSecretBasic = ClientAuthenticationMethod(rawValue: "client_secret_basic")
    /// The client secret in the request body (RFC 6749 §2.3.1).
    public static let clientSecretPost = ClientAuthenticationMethod(rawValue: "client_secret_post")
    /// A JWT signed with the client's private key (RFC 7523 §2.2, OpenID Connect Core §9).
    public static let privateKeyJWT = ClientAuthenticationMethod(rawValue: "private_key_jwt")

    /// The registered name.
    public var description: String { rawValue }
}
