/// Why a registration, or a read or delete of one, did not succeed.
///
/// The ``code`` says which refusal or failure it was: the provider's RFC 7591 §3.2.2 error codes
/// (``Code/invalidRedirectURI``, ``Code/invalidClientMetadata``, ...), an RFC 7592 refusal of the
/// registration access token (``Code/invalidToken``), or a failure on the client's side. A struct
/// of static members, so a later code breaks no `switch`. No secret is ever in it.
public struct ClientRegistrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which failure, by a stable name.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The stable name; for the provider's refusals its `error` value.
        public let rawValue: String

        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// RFC 7591 §3.2.2: a redirect URI the provider does not accept.
        public static let invalidRedirectURI = Code("invalid_redirect_uri")
        /// RFC 7591 §3.2.2: a metadata value the provider does not accept.
        public static let invalidClientMetadata = Code("invalid_client_metadata")
        /// RFC 7591 §3.2.2: the software statement is invalid.
        public static let invalidSoftwareStatement = Code("invalid_software_statement")
        /// RFC 7591 §3.2.2: the software statement is not approved here.
        public static let unapprovedSoftwareStatement = Code("unapproved_software_statement")
        /// RFC 7592 §2 / RFC 6750 §3.1: the registration access token (or the initial access
        /// token) was refused, or the registration no longer exists (401, 403 or 404).
        public static let invalidToken = Code("invalid_token")
        /// Another refusal by the provider, with its `error` in ``ClientRegistrationError/providerError``.
        public static let refused = Code("refused")
        /// The provider's answer is not a registration SessionKit can use (status, JSON, a required
        /// member missing, a value of the wrong type, a secret without its expiry, a registration
        /// the client cannot authenticate with); nothing stored was changed.
        public static let malformedResponse = Code("malformed_response")
        /// The provider offers no registration endpoint, or the stored registration has no
        /// registration access token to read or delete it with.
        public static let notSupported = Code("not_supported")
        /// The request did not reach the provider, or no answer came back.
        public static let transport = Code("transport")
        /// The registration could not be read from or written to the store.
        public static let storage = Code("storage")
        /// A running session's client secret expired, and the provider no longer knows its client
        /// (the client configuration endpoint refused the registration access token, or there is
        /// none): a new client was registered and stored. The session's grants belong to the old
        /// client id, so the session ends; sign in again with a session configured from the new
        /// registration (``ClientRegistrar/currentRegistration()`` returns it).
        public static let clientReplaced = Code("client_replaced")

        /// The stable name.
        public var description: String { rawValue }

        /// The code for an RFC 7591 §3.2.2 `error` value; ``refused`` for any other.
        static func registrationError(_ value: String?) -> Code {
            switch value {
            case "invalid_redirect_uri": .invalidRedirectURI
            case "invalid_client_metadata": .invalidClientMetadata
            case "invalid_software_statement": .invalidSoftwareStatement
            case "unapproved_software_statement": .unapprovedSoftwareStatement
            case "invalid_token": .invalidToken
            default: .refused
            }
        }
    }

    /// Which failure.
    public let code: Code
    /// What happened, in a phrase that names no secret.
    public let message: String
    /// The provider's `error` value, when it answered with one.
    public let providerError: String?
    /// The HTTP status of the provider's answer, when there was one.
    public let status: Int?
    /// For ``Code/clientReplaced`` ending a session: the effective subject of the session that
    /// ended, so the app knows whose sign-in to ask for.
    public var subject: String?
    /// For ``Code/clientReplaced`` ending a session: the account name to suggest at the next
    /// sign-in (`preferred_username`, else `email`, of the ended session's identity).
    public var loginHint: String?

    /// An error with the given parts.
    public init(code: Code, message: String, providerError: String? = nil, status: Int? = nil) {
        self.code = code
        self.message = message
        self.providerError = providerError
        self.status = status
    }

    /// Options for the next sign-in that suggest the same account (`login_hint`).
    public var signInOptions: AuthorizationRequestOptions {
        var options = AuthorizationRequestOptions.empty
        options.loginHint = loginHint
        return options
    }

    /// The code and the message; never the account.
    public var description: String { "ClientRegistrationError(\(code)): \(message)" }
}
