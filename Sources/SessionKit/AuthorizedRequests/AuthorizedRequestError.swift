/// Why ``Session/authorize(_:)`` or ``Session/send(_:)`` could not authorize or send the app's
/// request. Safe to print: no case carries a token, a proof or a nonce.
///
/// A struct with a ``Code`` so that a later version can add failures without breaking an app's
/// `switch`; compare ``code`` with the constants, or switch with a `default:` branch. An answer
/// the resource server gave, whatever its status, is never an error: ``Session/send(_:)`` returns it.
public struct AuthorizedRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which failure this is: a stable name.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The stable name, in `snake_case`.
        public let name: String

        private init(_ name: String) {
            self.name = name
        }

        /// The session had no access token to give (not signed in, a refresh that failed, a
        /// sign-out under way): ``AuthorizedRequestError/sessionError`` says which.
        public static let session = Code("session")
        /// The request cannot be authorized: its URL has no `http` or `https` origin, or its body
        /// is a stream, which could not be sent a second time for a retry.
        public static let invalidRequest = Code("invalid_request")
        /// The DPoP proof could not be signed (the key refused, the random source failed).
        public static let proofFailed = Code("proof_failed")
        /// The transport failed: ``AuthorizedRequestError/transportError`` says how.
        public static let transport = Code("transport")

        /// The stable name.
        public var description: String { name }
    }

    /// Which failure this is.
    public let code: Code
    /// The session's error, for ``Code/session``.
    public let sessionError: SessionError?
    /// The transport's error, for ``Code/transport``.
    public let transportError: TransportError?

    private init(code: Code, sessionError: SessionError? = nil, transportError: TransportError? = nil) {
        self.code = code
        self.sessionError = sessionError
        self.transportError = transportError
    }

    /// The session had no access token to give, for the reason `error` says.
    public static func session(_ error: SessionError) -> AuthorizedRequestError {
        AuthorizedRequestError(code: .session, sessionError: error)
    }

    /// The transport failed as `error` says.
    public static func transport(_ error: TransportError) -> AuthorizedRequestError {
        AuthorizedRequestError(code: .transport, transportError: error)
    }

    /// The request cannot be authorized as it is.
    public static let invalidRequest = AuthorizedRequestError(code: .invalidRequest)
    /// The DPoP proof could not be signed.
    public static let proofFailed = AuthorizedRequestError(code: .proofFailed)

    /// The code, with the session's or the transport's error when there is one.
    public var description: String {
        if let sessionError { return "AuthorizedRequestError(\(code): \(sessionError))" }
        if let transportError { return "AuthorizedRequestError(\(code): \(transportError))" }
        return "AuthorizedRequestError(\(code))"
    }
}
