/// What to do next while signing in with a device code, as `DevicePollPlanner` decides it.
package enum DevicePollStep: Sendable, Equatable {
    /// Wait this long on the injected clock, then poll the token endpoint again.
    case poll(after: Duration)
    /// The person approved; verify the tokens (the id_token carries no nonce in this grant).
    case finished(TokenResponse)
    /// Polling ended without tokens.
    case failed(DevicePollFailure)
}
