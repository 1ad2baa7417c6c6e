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

    private let token: Token

    init(value: String, expiresAt: Date) {
        token = Token(value: value, expiresAt: expiresAt)
    }

    func currentToken() -> Token {
        token
    }
}
