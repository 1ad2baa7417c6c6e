import Foundation

/// A caller suspended on the session's machine.
enum SessionWaiter: Sendable {
    /// Waits for the outcome of a sign-in, restore, sign-out or deletion.
    case outcome(UnsafeContinuation<WaiterResult<VerifiedTokens>, Never>)
    /// Waits for an access token only (`validAccessToken()`, `refresh()`).
    case accessToken(UnsafeContinuation<Result<AccessToken, SessionError>, Never>)

    /// What a caller waiting for an access token receives for `result`.
    static func accessTokenResult(_ result: WaiterResult<VerifiedTokens>) -> Result<AccessToken, SessionError> {
        switch result {
        case .tokens(let tokens): .success(AccessToken(secret: tokens.accessToken, expiresAt: tokens.accessTokenExpiresAt))
        case .done: .failure(.notSignedIn)
        case .failed(let error): .failure(error)
        }
    }

    /// Resumes the caller with `result`, or with `token` (the same result, made once for many
    /// callers) when it waits for an access token only.
    func resume(with result: WaiterResult<VerifiedTokens>, token: Result<AccessToken, SessionError>? = nil) {
        switch self {
        case .outcome(let continuation): continuation.resume(returning: result)
        case .accessToken(let continuation): continuation.resume(returning: token ?? Self.accessTokenResult(result))
        }
    }
}
