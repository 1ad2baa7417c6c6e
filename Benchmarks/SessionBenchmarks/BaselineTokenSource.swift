import Foundation

/// The yardstick for the fast path: an actor that does nothing but hand back a stored value of the
/// same shape as `AccessToken` (a string and a date), so the measured difference is what
/// `validAccessToken()` adds on top of a bare cross-actor call.
actor BaselineTokenSource {
    /// A value shaped like `AccessToken`.
    struct Token: Sendable {
        var value: String
        var expiresAt: Date
    }

    // A `var`, so reading it needs the actor's isolation: a `let` of a Sendable type may be read
    // without the hop, and the optimizer is free to drop the hop then.
    private var token: Token

    init(value: String, expiresAt: Date) {
        token = Token(value: value, expiresAt: expiresAt)
    }

    func currentToken() -> Token {
        token
    }
}
