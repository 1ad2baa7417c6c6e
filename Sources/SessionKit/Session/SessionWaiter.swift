import Foundation

/// A caller suspended on the session's machine.
enum SessionWaiter: Sendable {
    /// Waits for the outcome of a sign-in, restore, sign-out or deletion.
    case outcome(UnsafeContinuation<WaiterResult<VerifiedTokens>, Never>)
    /// Waits for an access token only (`validAccessToken()`, `refresh()`).
    case accessToken(UnsafeContinuation<TokenAnswer, Never>)

    /// Resumes the caller with `result`; a caller waiting for an access token gets `token` (the
    /// same result, made once and shared by every such caller of one resume) or one made here.
    func resume(with result: WaiterResult<VerifiedTokens>, token: TokenOutcome? = nil) {
        switch self {
        case .outcome(let continuation): continuation.resume(returning: result)
        case .accessToken(let continuation): continuation.resume(returning: .answered(token ?? TokenOutcome(result)))
        }
    }
}

/// What a caller waiting for an access token is resumed with: one shared reference, so a suspended
/// caller's frames hold a pointer rather than the whole result.
final class TokenOutcome: Sendable {
    /// The token, or why there is none.
    let result: Result<AccessToken, SessionError>

    init(_ result: Result<AccessToken, SessionError>) {
        self.result = result
    }

    /// The outcome for a caller of a machine result.
    convenience init(_ result: WaiterResult<VerifiedTokens>) {
        switch result {
        case .tokens(let tokens): self.init(.success(tokens.token))
        case .done, .restored: self.init(.failure(.notSignedIn))
        case .failed(let error): self.init(.failure(error))
        }
    }
}

/// How a caller waiting for an access token comes back: three outcomes, each its own case (one
/// pointer wide, like the ``TokenOutcome`` it carries).
enum TokenAnswer: Sendable {
    /// The machine answered: the token, or why there is none.
    case answered(TokenOutcome)
    /// The caller's task was cancelled before the machine held it.
    case cancelledFirst
    /// The caller came to join a refresh in flight and found it ended between its look at the
    /// handout and the join: it asks the machine instead.
    case refreshEnded
}
