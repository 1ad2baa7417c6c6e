import Foundation

extension SessionStateMachine {
    /// The app called `signIn()`.
    mutating func signIn(_ attempt: SignInAttempt, id: WaiterID, waiter: Waiter) -> [Action] {
        switch SignInAdmission(.browser, in: state) {
        case .start(let from, let guest, let leaving):
            let left = leaving.map { leaveRevokingForSignIn($0) } ?? []
            return left + beginHandoff(attempt, id: id, waiter: waiter, from: from, guest: guest)
        case .answer(let result):
            return [.resume([waiter], result)]
        case .joinGuestBootstrap:
            return inconsistency("a browser sign-in was admitted to a guest bootstrap", resuming: [waiter])
        case .outOfService:
            return outOfService(waiter: waiter)
        }
    }

    private mutating func beginHandoff(
        _ attempt: SignInAttempt, id: WaiterID, waiter: Waiter, from: SessionStage = .signedOut, guest: Tokens? = nil
    ) -> [Action] {
        generation += 1
        let timer = makeTimer()
        let handoff = Handoff(attempt: attempt, timer: timer, waiters: WaiterList(id, waiter), guest: guest)
        state = .handoff(handoff)
        return [
            .transition(from: from, to: .handoff, reason: .signInRequested),
            .present(attempt, generation: generation, cancel: handoff.work),
            .startTimer(timer, after: configuration.handoffTimeout),
        ]
    }

    /// A callback URL matching the redirect URI arrived. Returns whether it was consumed.
    mutating func callbackReceived(_ callback: CallbackParameters, expectedIssuer: String) -> (consumed: Bool, actions: [Action]) {
        guard case .handoff(let handoff) = state else {
            // No handoff waits for it: a stale or replayed callback is not consumed.
            return (false, [.emit(.callbackRefused(.noHandoffWaiting))])
        }
        if let name = callback.repeatedNames.first {
            // RFC 6749 §3.1: no parameter may repeat. Which value is genuine cannot be told, so
            // none is used and the handoff keeps waiting for a well-formed answer.
            return (false, [.emit(.callbackRefused(.repeatedParameter(name: name)))])
        }
        guard let attempt = handoff.attempt else {
            // A device sign-in waits: no callback answers it.
            return (false, [.emit(.callbackRefused(.noHandoffWaiting))])
        }
        guard callback.state == attempt.state else {
            // Not this handoff's answer (a stale or forged link): not consumed, so whoever can open
            // the app's redirect URL cannot cancel a sign-in in progress.
            return (false, [.emit(.callbackRefused(.stateMismatch))])
        }
        let failure: (TransitionReason, SessionError)?
        if let issuer = callback.issuer, issuer != expectedIssuer {
            failure = (.callbackRejected(.issuerMismatch), .callbackRejected(.issuerMismatch))
        } else if let error = callback.error {
            failure = (.authorizationDenied(error: error), .authorizationDenied(error))
        } else if callback.code == nil || callback.code?.isEmpty == true {
            failure = (.callbackRejected(.missingCode), .callbackRejected(.missingCode))
        } else {
            failure = nil
        }
        if let (reason, error) = failure {
            return (true, endHandoff(handoff, reason: reason, error: error))
        }
        var answered = attempt
        answered.redirectURI = callback.redirectURI
        state = .verifying(Verifying(attempt: answered, waiters: handoff.waiters, guest: handoff.guest))
        return (
            true,
            [
                .cancelTimer(handoff.timer),
                .cancelPresenter(handoff.work),
                .transition(from: .handoff, to: .verifying, reason: .callbackReceived),
                .exchangeCode(code: callback.code ?? "", attempt: answered, generation: generation),
            ]
        )
    }

    /// The presenter ended without delivering a callback.
    mutating func presenterFailed(_ error: HandoffError, generation: UInt64) -> [Action] {
        if generation == self.generation, case .revoking(let operation) = state, let logout = operation.logout {
            return finishProviderLogout(operation, logout: logout, outcome: ProviderLogoutOutcome(error))
        }
        guard generation == self.generation, case .handoff(let handoff) = state else {
            // The handoff already ended (callback, timeout, sign-out): the presenter's late word is moot.
            return []
        }
        switch error {
        case .cancelled:
            return endHandoff(handoff, reason: .handoffCancelled, error: .cancelled)
        case .presentationFailed:
            return endHandoff(handoff, reason: .presentationFailed(error), error: .presentationFailed(error))
        case .unsupported(let why):
            return endHandoff(handoff, reason: .presentationFailed(error), error: .unsupported(.presentation(why)))
        }
    }

    /// The code exchange returned verified tokens (already stored).
    mutating func exchangeSucceeded(_ tokens: Tokens, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .verifying(let verifying) = state, !verifying.bootstrapsGuest else {
            return [.discardLateTokens(tokens)]
        }
        state = .active(Active(tokens: tokens))
        let reason: TransitionReason =
            tokens.isVerifiedByIDToken ? .verified(subject: tokens.subject) : .identifiedByUserInfo(subject: tokens.subject)
        var actions: [Action] = [.transition(from: .verifying, to: .active, reason: reason)]
        if verifying.guest != nil {
            // The provider's claims say whether the guest became this account; the guest
            // credential goes only now that the signed-in identity is verified.
            if tokens.wasPreviouslyAnonymous && !tokens.isAnonymous {
                actions.append(.emit(.anonymousUserPromoted(subject: tokens.subject)))
            }
            actions.append(.resetGuestCredential)
        }
        actions.append(.resume(verifying.waiters.ordered, .tokens(tokens)))
        return actions
    }

    /// The code exchange or its verification failed.
    mutating func exchangeFailed(_ error: SessionError, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .verifying(let verifying) = state, !verifying.bootstrapsGuest else {
            // The sign-in was already abandoned; nothing was stored for it.
            return []
        }
        self.generation += 1
        // A sign-in from a guest session that failed leaves the guest session as it was, and its
        // callers' error says so.
        state = verifying.guest.map { .active(Active(tokens: $0)) } ?? .signedOut
        return [
            .transition(from: .verifying, to: stage, reason: Self.reason(for: error)),
            .resume(verifying.waiters.ordered, .failed(verifying.guest == nil ? error : error.keepingSignedInSession())),
        ]
    }
}
