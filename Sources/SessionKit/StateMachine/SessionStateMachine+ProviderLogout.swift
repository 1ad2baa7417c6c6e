import Foundation

extension SessionStateMachine {
    /// A URL that may be the provider's return from its end-session page arrived (through
    /// `handle(_:)`, or from the presenter at `redirectURI`, the post-logout redirect URI it chose).
    /// Returns whether it was consumed.
    ///
    /// Matched like a sign-in callback: only this sign-out's post-logout redirect URI with exactly
    /// one `state`, equal to the one sent, completes the logout; anything else is not consumed and
    /// the logout keeps waiting, so a forged link can neither complete nor cancel it.
    mutating func endSessionReturned(_ url: URL, redirectURI: URL? = nil) -> (consumed: Bool, actions: [Action]) {
        guard case .revoking(let operation) = state, let logout = operation.logout else {
            // No sign-out waits for the provider's return: a stale or replayed link is not consumed.
            return (false, [])
        }
        var request = logout.request
        if let redirectURI { request.postLogoutRedirectURI = redirectURI }
        guard request.match(url) == .completed else { return (false, []) }
        return (true, finishProviderLogout(operation, logout: logout, outcome: .completed))
    }

    /// After the sign-out revoked (or could not tell the provider) and wiped: either the
    /// provider's browser session is ended next, or the sign-out ends now with `reason`.
    ///
    /// The wait for the provider's return is bounded by its own timeout, shorter than a sign-in's:
    /// the server-first part is done, and a provider that will not send the browser back (one that
    /// refuses the post-logout redirect URI) must not hold `signOut()` for a sign-in's five minutes.
    mutating func finishSignOut(_ operation: ServerOperation, reason: TransitionReason, plan: EndSessionPlan) -> [Action] {
        if case .open(let order) = plan {
            // Still revoking: no token is handed out and a new sign-in supersedes the logout.
            var operation = operation
            state = .modifying
            let timer = makeTimer()
            let logout = ProviderLogout(request: order.request, timer: timer)
            operation.logout = logout
            state = .revoking(operation)
            return [
                .transition(from: .revoking, to: .revoking, reason: reason),
                .presentEndSession(order, generation: generation, cancel: logout.presentation),
                .startTimer(timer, after: configuration.providerLogoutTimeout),
            ]
        }
        generation += 1
        state = .signedOut
        var actions: [Action] = [.transition(from: .revoking, to: .signedOut, reason: reason)]
        if case .unavailable(let why) = plan { actions.append(.emit(.providerLogout(.unavailable(why)))) }
        actions.append(.resume(operation.waiters.ordered, .done))
        return actions
    }

    /// The provider logout ended, however: the sign-out is complete either way, and its callers return.
    mutating func finishProviderLogout(
        _ operation: ServerOperation, logout: ProviderLogout, outcome: ProviderLogoutOutcome
    ) -> [Action] {
        generation += 1
        state = .signedOut
        let reason: TransitionReason = outcome == .completed ? .providerSessionEnded : .providerSessionNotEnded(outcome)
        return [
            .cancelTimer(logout.timer), .cancelPresenter(logout.presentation), .transition(from: .revoking, to: .signedOut, reason: reason),
            .emit(.providerLogout(outcome)), .resume(operation.waiters.ordered, .done),
        ]
    }

    /// A new sign-in leaves a sign-out still waiting for the provider.
    mutating func leaveRevokingForSignIn(
        _ operation: ServerOperation
    ) -> [Action] {
        if let logout = operation.logout {
            // Revoked and wiped already; only the provider logout is left, and the new sign-in
            // needs the presenter.
            return finishProviderLogout(operation, logout: logout, outcome: .superseded)
        }
        // A pending revocation must not hold the person hostage: the old refresh token moves to
        // the background queue, stays unusable, and the new sign-in starts.
        var actions: [Action] = operation.retryTimer.map { [.cancelTimer($0)] } ?? []
        actions += [
            .deferRevocation,
            .resume(operation.waiters.ordered, .done),
            .transition(from: .revoking, to: .signedOut, reason: .revocationDeferred),
        ]
        return actions
    }
}

extension ProviderLogoutOutcome {
    /// How a presenter's failure reads as the logout's outcome.
    init(_ error: HandoffError) {
        switch error {
        case .cancelled: self = .cancelled
        case .presentationFailed(let why), .unsupported(let why): self = .presentationFailed(why)
        }
    }
}
