import SessionKit

extension SessionError {
    /// One word for the output line (`invalid_grant` for a rejected refresh token, the stable
    /// ``SessionError/code`` otherwise), then details that never carry a secret.
    var toolCode: String {
        self == .refreshTokenRejected ? "invalid_grant" : description
    }
}
