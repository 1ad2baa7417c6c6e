import Foundation

/// The parameters of one sign-in attempt, all from the CSPRNG; they live only in the handoff
/// and verifying stages, and never print.
struct SignInAttempt: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var authorizationURL: URL
    var state: String
    var nonce: String
    var codeVerifier: String
    /// The PKCE challenge, to render the request for a presenter's own redirect URI.
    var codeChallenge = ""
    /// The redirect URI the callback arrived at, when a presenter chose its own (loopback).
    var redirectURI: URL?
    /// The request options sent (configuration defaults overridden per sign-in); the returned
    /// id_token must satisfy what they ask (`max_age`, essential `acr`).
    var options: AuthorizationRequestOptions = .empty
    /// The DPoP key the code is bound to (`dpop_jkt`) and the tokens will be.
    var dpopKey: DPoPSignInKey?

    var description: String { "SignInAttempt(<redacted>)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// The query parameters of a callback URL that matched the redirect URI.
struct CallbackParameters: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    var code: String?
    var state: String?
    var error: String?
    var issuer: String?
    /// The presenter's own redirect URI the callback arrived at; `nil` for the configured one.
    var redirectURI: URL?
    /// Names that appear more than once in the query (never their values).
    var repeatedNames: [String] = []

    var description: String { "CallbackParameters(<redacted>)" }
    var debugDescription: String { description }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
