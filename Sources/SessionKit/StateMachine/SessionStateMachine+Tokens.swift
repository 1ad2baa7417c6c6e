import Foundation

extension SessionStateMachine {
    /// What a caller may be handed without an input: the rule ``tokenRequested(id:waiter:now:force:)``
    /// applies, as a value the owner checks against its own clock.
    enum Handout {
        /// Active: `tokens` may be handed out until `dueAt` (access-token expiry minus the lead time;
        /// the expiry itself for a session without a refresh token).
        case fresh(Tokens, dueAt: Date)
        /// Refreshing: a caller may join the refresh in flight with ``joinRefresh(id:waiter:)``.
        case joinRefresh
    }

    /// The handout rule of the current stage (the fast path of `validAccessToken()`), or `nil` when
    /// every request must go through ``tokenRequested(id:waiter:now:force:)``.
    var handout: Handout? {
        switch state {
        case .active(let active):
            .fresh(
                active.tokens,
                dueAt: configuration.timing.dueAt(expiresAt: active.tokens.accessTokenExpiresAt, canRefresh: active.tokens.canRefresh))
        case .refreshing(let refreshing):
            if refreshing.retryTimer != nil, let previous = refreshing.previous {
                // Backing off after a failure that may pass: the lead time is a preference, not a
                // cliff, so the current token is handed out until it really expires.
                .fresh(previous, dueAt: previous.accessTokenExpiresAt)
            } else {
                .joinRefresh
            }
        case .signedOut, .handoff, .verifying, .revoking, .disconnecting: nil
        case .modifying, .stopped: nil
        }
    }

    /// A caller wants a valid access token (`force`: a refresh regardless of expiry).
    mutating func tokenRequested(id: WaiterID, waiter: Waiter, now: Date, force: Bool) -> [Action] {
        switch state {
        case .active(let active) where !active.tokens.canRefresh:
            return tokenRequestedWithoutRefreshToken(active, waiter: waiter, now: now, force: force)
        case .active(let active):
            if !force && !isDue(active.tokens, now: now) {
                return [.resume([waiter], .tokens(active.tokens))]
            }
            let refreshing = Refreshing(
                previous: active.tokens, waiters: WaiterList(id, waiter), attempt: 1, retryTimer: nil, forced: force ? [id] : [])
            state = .refreshing(refreshing)
            let remaining = configuration.timing.secondsLeft(until: active.tokens.accessTokenExpiresAt, now: now)
            let reason: TransitionReason = force ? .refreshRequested : .tokenDue(inSeconds: remaining, callers: 1)
            return [
                .transition(from: .active, to: .refreshing, reason: reason),
                renewal(refreshing.order(generation: generation)),
            ]
        case .refreshing(var refreshing):
            if force {
                // refresh() wants a token newer than the one held: it joins the refresh in
                // flight (or backing off), and is never handed the previous token.
                state = .modifying
                refreshing.waiters.append(id, waiter)
                refreshing.forced.insert(id)
                state = .refreshing(refreshing)
                return []
            }
            if let previous = stillValid(refreshing, now: now) {
                return [.resume([waiter], .tokens(previous))]
            }
            _ = joinRefresh(id: id, waiter: waiter, now: now)
            return []
        case .handoff(let handoff) where handoff.guest != nil:
            return guestTokenDuringSignIn(handoff.guest, waiter: waiter, now: now, force: force)
        case .verifying(let verifying) where verifying.guest != nil:
            return guestTokenDuringSignIn(verifying.guest, waiter: waiter, now: now, force: force)
        case .signedOut, .handoff, .verifying:
            return [.resume([waiter], .failed(.notSignedIn))]
        case .revoking:
            return [.resume([waiter], .failed(.signOutInProgress))]
        case .disconnecting:
            return [.resume([waiter], .failed(.accountDeletionInProgress))]
        case .modifying, .stopped:
            return outOfService(waiter: waiter)
        }
    }

    /// While a guest signs in, the guest session still serves the app: its key is handed out
    /// until it expires (it is not renewed meanwhile; a failed sign-in returns to it).
    private func guestTokenDuringSignIn(_ guest: Tokens?, waiter: Waiter, now: Date, force: Bool) -> [Action] {
        guard let guest, !force, !configuration.timing.isExpired(expiresAt: guest.accessTokenExpiresAt, now: now) else {
            return [.resume([waiter], .failed(.signInInProgress))]
        }
        return [.resume([waiter], .tokens(guest))]
    }

    /// A session the provider issued no refresh token for lasts as long as its access token: it is
    /// handed out until it expires, and then the session ends and asks for sign-in.
    private mutating func tokenRequestedWithoutRefreshToken(_ active: Active, waiter: Waiter, now: Date, force: Bool) -> [Action] {
        if !configuration.timing.isExpired(expiresAt: active.tokens.accessTokenExpiresAt, now: now) {
            if force { return [.resume([waiter], .failed(.unsupported(.refreshWithoutRefreshToken)))] }
            return [.resume([waiter], .tokens(active.tokens))]
        }
        generation += 1
        state = .signedOut
        return [.transition(from: .active, to: .signedOut, reason: .sessionExpired), .resume([waiter], .failed(.sessionExpired))]
    }

    /// A caller joins the refresh in flight, if there is one. Its only possible result is the
    /// caller waiting here for that refresh's outcome, so the owner may feed it from any executor
    /// (under the lock that guards the machine). Returns `false`, and keeps nothing, when no
    /// refresh is in flight, or when a backoff lets the current token be handed out: the caller
    /// must then ask through ``tokenRequested(id:waiter:now:force:)``.
    mutating func joinRefresh(id: WaiterID, waiter: Waiter, now: Date) -> Bool {
        switch state {
        case .refreshing(var refreshing):
            if stillValid(refreshing, now: now) != nil { return false }
            state = .modifying
            refreshing.waiters.append(id, waiter)
            state = .refreshing(refreshing)
            return true
        case .signedOut, .handoff, .verifying, .active, .revoking, .disconnecting, .stopped:
            // Not joined: the caller asks through tokenRequested, which answers every stage.
            return false
        case .modifying:
            // Our bug; tokenRequested reports it.
            return false
        }
    }

    /// A refresh returned verified tokens (already stored).
    mutating func refreshSucceeded(_ tokens: Tokens, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .refreshing(let refreshing) = state else {
            return [.discardLateTokens(tokens)]
        }
        state = .active(Active(tokens: tokens))
        var actions: [Action] = []
        if let previous = refreshing.previous, previous.isGuest {
            // A guest's renewal that had to bootstrap afresh made a new anonymous user: not a merge.
            if previous.subject != tokens.subject {
                actions.append(.emit(.guestStartedOver(previousSubject: previous.subject, subject: tokens.subject)))
            }
        } else if let previous = refreshing.previous {
            // Account identity is the provider's word, told as events, never guessed.
            if previous.subject != tokens.subject {
                actions.append(.emit(.subjectChanged(from: previous.subject, to: tokens.subject, absorbed: tokens.linkedSubjects)))
            }
            if previous.isAnonymous && !tokens.isAnonymous {
                actions.append(.emit(.anonymousUserPromoted(subject: tokens.subject)))
            }
        }
        let reason: TransitionReason =
            if refreshing.previous == nil {
                .verified(subject: tokens.subject)
            } else if let previous = refreshing.previous, previous.isGuest {
                .guestKeyRenewed(callers: refreshing.waiters.count, startedOver: previous.subject != tokens.subject)
            } else if tokens.carriesNewIDToken {
                .refreshed(callers: refreshing.waiters.count)
            } else {
                .refreshedIdentityKept(callers: refreshing.waiters.count)
            }
        actions.append(.transition(from: .refreshing, to: .active, reason: reason))
        actions.append(.resume(refreshing.waiters.ordered, .tokens(tokens)))
        return actions
    }

    /// A refresh failed, as the owner classified it.
    ///
    /// While the current access token has not expired at `now`, the callers waiting for the refresh
    /// are handed it (the lead time is a preference, not a cliff); only a token past its expiry
    /// makes them fail.
    mutating func refreshFailed(_ failure: RefreshFailure, generation: UInt64, now: Date) -> [Action] {
        guard generation == self.generation, case .refreshing(var refreshing) = state else {
            // Superseded by sign-out, deletion or a new sign-in; the store already reflects it.
            return []
        }
        switch failure {
        case .inconsistent:
            // The procedure asserted already (debug builds stop there).
            return stopAfterInconsistency(resuming: [])
        case .transient(let error, let retryIn?):
            state = .modifying
            let timer = makeTimer()
            refreshing.attempt += 1
            refreshing.retryTimer = timer
            var actions: [Action] = [
                .transition(
                    from: .refreshing, to: .refreshing,
                    reason: .retrying(attempt: refreshing.attempt - 1, afterSeconds: Self.seconds(retryIn), because: error)),
                .startTimer(timer, after: retryIn),
            ]
            if let previous = refreshing.previous, !configuration.timing.isExpired(expiresAt: previous.accessTokenExpiresAt, now: now),
                refreshing.waiters.count > refreshing.forced.count
            {
                // refresh()'s callers stay for the retry: they asked for a newer token.
                actions.append(.resume(refreshing.takeUnforced(), .tokens(previous)))
            }
            state = .refreshing(refreshing)
            return actions
        case .transient(let error, nil):
            // Not sticky: the tokens stay, the waiters get the current token while it is valid and
            // the error after, and the next call may try again.
            let waiters = refreshing.waiters.ordered
            if let previous = refreshing.previous {
                state = .active(Active(tokens: previous))
                var actions: [Action] = [
                    .transition(from: .refreshing, to: .active, reason: .refreshFailedTransiently(error))
                ]
                if configuration.timing.isExpired(expiresAt: previous.accessTokenExpiresAt, now: now) {
                    actions.append(.resume(waiters, .failed(error)))
                } else {
                    // The current token for those content with it; refresh()'s callers asked for
                    // a newer one, and are told why there is none.
                    let content = refreshing.takeUnforced()
                    if !content.isEmpty { actions.append(.resume(content, .tokens(previous))) }
                    if !refreshing.waiters.isEmpty { actions.append(.resume(refreshing.waiters.ordered, .failed(error))) }
                }
                return actions
            }
            // A restore that could not reach the provider: nothing verified to show, nothing wiped.
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: .refreshing, to: .signedOut, reason: .refreshFailedTransiently(error)),
                .resume(waiters, .failed(error)),
            ]
        case .permanent(let error):
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: .refreshing, to: .signedOut, reason: Self.reason(for: error)),
                .resume(refreshing.waiters.ordered, .failed(error)),
            ]
        case .rejected(let answer):
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: .refreshing, to: .signedOut, reason: .refreshRejected(answer)),
                .resume(refreshing.waiters.ordered, .failed(.refreshTokenRejected)),
            ]
        }
    }
}

extension SessionStateMachine {
    /// The current tokens, while a refresh backs off after a failure that may pass and they have
    /// not expired at `now`.
    func stillValid(_ refreshing: Refreshing, now: Date) -> Tokens? {
        guard refreshing.retryTimer != nil, let previous = refreshing.previous,
            !configuration.timing.isExpired(expiresAt: previous.accessTokenExpiresAt, now: now)
        else { return nil }
        return previous
    }
}

extension SessionStateMachine.Handout: Sendable where Tokens: Sendable {}
