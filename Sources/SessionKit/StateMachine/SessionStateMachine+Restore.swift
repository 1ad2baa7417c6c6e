import Foundation

extension SessionStateMachine {
    /// The platform store keeps the credentials in files: tell the app why, whatever the stage.
    mutating func credentialStoreFellBack(reason: String) -> [Action] {
        [.emit(.credentialStoreFallback(reason: reason))]
    }

    /// `restore()` found the store locked (protected data not available yet).
    mutating func credentialStoreLocked() -> [Action] {
        [.emit(.credentialStoreLocked)]
    }

    /// `restore()` loaded the store.
    ///
    /// A launch never waits for the network: the caller is answered at once, in every case, with
    /// the stage the session was restored into. Offline-first (DESIGN invariant 8): a stored,
    /// verified session is signed in at once, with no network request while its access token is
    /// not due. A due one is refreshed in the background from the stored tokens, so a failure that
    /// may pass keeps the person signed in. A journaled sign-out or deletion resumes in the
    /// background (`revoking`, `disconnecting`), and its end is told through events.
    mutating func restoreLoaded(_ plan: RestorePlan<Tokens>, now: Date, id: WaiterID, waiter: Waiter) -> [Action] {
        switch state {
        case .signedOut:
            break
        case .handoff, .verifying, .active, .refreshing, .revoking, .disconnecting:
            // Already running (a second restore, or sign-in first): nothing to restore.
            return [.resume([waiter], .restored(stage))]
        case .modifying, .stopped:
            return outOfService(waiter: waiter)
        }
        switch plan {
        case .nothing:
            return [.transition(from: .signedOut, to: .signedOut, reason: .nothingStored), .resume([waiter], .restored(.signedOut))]
        case .session(let tokens)
        where !tokens.canRefresh && configuration.timing.isExpired(expiresAt: tokens.accessTokenExpiresAt, now: now):
            // No refresh token, and the access token is gone: the session is over, nothing to try.
            return [
                .transition(from: .signedOut, to: .signedOut, reason: .sessionExpired), .resume([waiter], .failed(.sessionExpired)),
            ]
        case .session(let tokens):
            generation += 1
            // A session without a refresh token is good until its access token expires.
            if !isDue(tokens, now: now) {
                state = .active(Active(tokens: tokens))
                return [
                    .transition(from: .signedOut, to: .active, reason: .restored(subject: tokens.subject)),
                    .resume([waiter], .restored(.active)),
                ]
            }
            let refreshing = Refreshing(previous: tokens, waiters: WaiterList(), attempt: 1, retryTimer: nil)
            state = .refreshing(refreshing)
            let remaining = configuration.timing.secondsLeft(until: tokens.accessTokenExpiresAt, now: now)
            return [
                .transition(from: .signedOut, to: .refreshing, reason: .restoredDue(subject: tokens.subject, inSeconds: remaining)),
                .resume([waiter], .restored(.refreshing)),
                renewal(refreshing.order(generation: generation)),
            ]
        case .incompleteSession:
            generation += 1
            // Nothing verified to hand out yet: the refresh runs in the background, and callers of
            // validAccessToken() join it.
            let refreshing = Refreshing(previous: nil, waiters: WaiterList(), attempt: 1, retryTimer: nil)
            state = .refreshing(refreshing)
            return [
                .transition(from: .signedOut, to: .refreshing, reason: .restoring),
                .resume([waiter], .restored(.refreshing)),
                .refresh(refreshing.order(generation: generation)),
            ]
        case .foreignSession(let why):
            // Not this configuration's session: left in the store untouched, and not used.
            return [
                .transition(from: .signedOut, to: .signedOut, reason: .storedSessionNotRestored(why)),
                .resume([waiter], .failed(.storedSessionForeign(why))),
            ]
        case .dpopKeyUnavailable(let loss):
            // Its tokens are bound to a key that is not here: no request goes out with another
            // key, the record stays for the next sign-in to replace, and the app is told why.
            return [
                .transition(from: .signedOut, to: .signedOut, reason: .dpopKeyUnavailable(loss)),
                .resume([waiter], .failed(.dpopKeyUnavailable(loss))),
            ]
        case .pending(.signOut):
            generation += 1
            state = .revoking(ServerOperation(tokens: nil, attempt: 1, retryTimer: nil, waiters: WaiterList()))
            return [
                .transition(from: .signedOut, to: .revoking, reason: .resumingPendingOperation),
                .resume([waiter], .restored(.revoking)),
                .revoke(generation: generation, attempt: 1),
            ]
        case .pending(.deleteAccount):
            generation += 1
            state = .disconnecting(ServerOperation(tokens: nil, attempt: 1, retryTimer: nil, waiters: WaiterList()))
            return [
                .transition(from: .signedOut, to: .disconnecting, reason: .resumingPendingOperation),
                .resume([waiter], .restored(.disconnecting)),
                .disconnect(generation: generation, attempt: 1),
            ]
        }
    }
}
