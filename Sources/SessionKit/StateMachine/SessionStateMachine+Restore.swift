import Foundation

extension SessionStateMachine {
    /// What a cold launch's look at the store can lead to.
    enum RestoreAction: MachineAction {
        case output(Output)
        /// Refresh and verify the stored session.
        case refresh(RefreshOrder)
        /// Resume a journaled sign-out.
        case revoke(generation: UInt64, attempt: Int)
        /// Resume a journaled deletion.
        case disconnect(generation: UInt64, attempt: Int)
    }

    /// `restore()` loaded the store.
    ///
    /// Offline-first (DESIGN invariant 8): a stored, verified session is signed in at once, with no
    /// network request while its access token is not due. A due one is refreshed in the background
    /// from the stored tokens, so a failure that may pass keeps the person signed in.
    mutating func restoreLoaded(_ plan: RestorePlan<Tokens>, now: Date, id: WaiterID, waiter: Waiter) -> [RestoreAction] {
        switch state {
        case .signedOut:
            break
        case .handoff, .verifying, .active, .refreshing, .revoking, .disconnecting:
            // Already running (a second restore, or sign-in first): nothing to restore.
            return [.resume([waiter], .done)]
        case .modifying:
            preconditionFailure("re-entered while modifying")
        }
        switch plan {
        case .nothing:
            return [.transition(from: .signedOut, to: .signedOut, reason: .nothingStored), .resume([waiter], .done)]
        case .session(let tokens) where !tokens.canRefresh && now >= tokens.accessTokenExpiresAt:
            // No refresh token, and the access token is gone: the session is over, nothing to try.
            return [
                .transition(from: .signedOut, to: .signedOut, reason: .sessionExpired), .resume([waiter], .failed(.sessionExpired)),
            ]
        case .session(let tokens):
            generation += 1
            // A session without a refresh token is good until its access token expires.
            let lead = tokens.canRefresh ? configuration.refreshLeadTime : .zero
            if Self.isFresh(tokens, now: now, lead: lead) {
                state = .active(Active(tokens: tokens))
                return [
                    .transition(from: .signedOut, to: .active, reason: .restored(subject: tokens.subject)),
                    .resume([waiter], .tokens(tokens)),
                ]
            }
            state = .refreshing(Refreshing(previous: tokens, waiters: WaiterList(), attempt: 1, retryTimer: nil))
            let remaining = max(0, Int(tokens.accessTokenExpiresAt.timeIntervalSince(now).rounded(.down)))
            return [
                .transition(from: .signedOut, to: .refreshing, reason: .restoredDue(subject: tokens.subject, inSeconds: remaining)),
                .resume([waiter], .tokens(tokens)),
                .refresh(RefreshOrder(generation: generation, attempt: 1, previous: tokens)),
            ]
        case .incompleteSession:
            generation += 1
            state = .refreshing(Refreshing(previous: nil, waiters: WaiterList(id, waiter), attempt: 1, retryTimer: nil))
            return [
                .transition(from: .signedOut, to: .refreshing, reason: .restoring),
                .refresh(RefreshOrder(generation: generation, attempt: 1, previous: nil)),
            ]
        case .foreignSession(let why):
            // Not this configuration's session: left in the store untouched, and not used.
            return [
                .transition(from: .signedOut, to: .signedOut, reason: .storedSessionNotRestored(why)),
                .resume([waiter], .failed(.storedSessionForeign(why))),
            ]
        case .pending(.signOut):
            generation += 1
            state = .revoking(ServerOperation(tokens: nil, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter)))
            return [
                .transition(from: .signedOut, to: .revoking, reason: .resumingPendingOperation),
                .revoke(generation: generation, attempt: 1),
            ]
        case .pending(.deleteAccount):
            generation += 1
            state = .disconnecting(ServerOperation(tokens: nil, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter)))
            return [
                .transition(from: .signedOut, to: .disconnecting, reason: .resumingPendingOperation),
                .disconnect(generation: generation, attempt: 1),
            ]
        }
    }
}

extension SessionStateMachine.RestoreAction: Sendable where Tokens: Sendable, Waiter: Sendable {}
