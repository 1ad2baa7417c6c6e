import Foundation
import SessionKitCore

/// Guest ("anonymous-first") sessions, in the same stages as any session.
///
/// ```
///  signedOut ── startGuestSession() ──▶ verifying ── key issued ──▶ active (anonymous, no refresh token)
///      ▲                                    │ bootstrap failed          │  ▲ key due: refreshing ── bootstrap
///      │◀───────────────────────────────────┘                           │  └───────── with the stored secret
///      │◀── guest session ended ── revoking ◀──── signOut() ────────────┤
///      │◀── guest session ended ── disconnecting ◀── deleteAccount() ───┤
///                        handoff ◀── signIn() ──────────────────────────┘ (a failed sign-in returns here)
/// ```
///
/// A guest's key is renewed like a refresh: the same timing rule, the same `refreshing` stage and
/// its waiters (one bootstrap for any number of callers), the same failure classes; only the
/// action differs (``Action/renewGuestKey(_:)``, never ``Action/refresh(_:)``). Ending a guest
/// session sends nothing to the provider: a device key has no revocation, so the stage waits only
/// for the local wipe. A sign-in from a guest session keeps the guest in its `handoff` and
/// `verifying` payloads, returns to it when it fails, and forgets the guest credential only once
/// the signed-in identity was verified.
extension SessionStateMachine {
    /// The app called `startGuestSession()`.
    mutating func guestSessionRequested(id: WaiterID, waiter: Waiter) -> [Action] {
        switch SignInAdmission(.guest, in: state) {
        case .start(from: .signedOut, guest: nil, leaving: nil):
            generation += 1
            state = .verifying(Verifying(attempt: nil, waiters: WaiterList(id, waiter), bootstrapsGuest: true))
            return [
                .transition(from: .signedOut, to: .verifying, reason: .guestSessionRequested),
                .bootstrapGuest(generation: generation),
            ]
        case .start:
            return inconsistency("a guest session was admitted over another session", resuming: [waiter])
        case .joinGuestBootstrap:
            guard case .verifying(var verifying) = state else {
                return inconsistency("a guest bootstrap was joined outside verifying", resuming: [waiter])
            }
            state = .modifying
            verifying.waiters.append(id, waiter)
            state = .verifying(verifying)
            return []
        case .answer(let result):
            return [.resume([waiter], result)]
        case .outOfService:
            return outOfService(waiter: waiter)
        }
    }

    /// The first bootstrap of a guest session issued a key (already stored).
    mutating func guestBootstrapped(_ tokens: Tokens, startedOver: Bool, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .verifying(let verifying) = state, verifying.bootstrapsGuest else {
            // Signed out (or shut down) before the key arrived: it must not resurrect the guest.
            return [.discardLateTokens(tokens)]
        }
        state = .active(Active(tokens: tokens))
        return [
            .transition(from: .verifying, to: .active, reason: .guestStarted(subject: tokens.subject, startedOver: startedOver)),
            .resume(verifying.waiters.ordered, .tokens(tokens)),
        ]
    }

    /// The first bootstrap of a guest session gave no key; nothing was kept but the device credential.
    mutating func guestBootstrapFailed(_ error: SessionError, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .verifying(let verifying) = state, verifying.bootstrapsGuest else {
            // Abandoned already (signed out, shut down): its answer is moot.
            return []
        }
        if case .guestBootstrapFailed(.inconsistent) = error.kind {
            // The procedure asserted already (debug builds stop there).
            return stopAfterInconsistency()
        }
        self.generation += 1
        state = .signedOut
        return [
            .transition(from: .verifying, to: .signedOut, reason: Self.reason(for: error)),
            .resume(verifying.waiters.ordered, .failed(error)),
        ]
    }

    /// `signOut()` (`.revoking`) or `deleteAccount()` (`.disconnecting`) of a guest session:
    /// nothing to revoke or disconnect at the provider, so the stage waits for the local wipe only.
    mutating func endGuest(_ tokens: Tokens, to stage: SessionStage, from: SessionStage, id: WaiterID, waiter: Waiter, first: [Action])
        -> [Action]
    {
        generation += 1
        let operation = ServerOperation(tokens: tokens, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter))
        state = stage == .disconnecting ? .disconnecting(operation) : .revoking(operation)
        return first + [
            .transition(from: from, to: stage, reason: .guestSignOutRequested),
            .endGuestSession(generation: generation),
        ]
    }

    /// The local wipe of a guest session ended.
    mutating func guestSessionEnded(_ result: Result<Void, CredentialStoreError>, generation: UInt64) -> [Action] {
        guard generation == self.generation else { return [] }
        let operation: ServerOperation
        let stage: SessionStage
        switch state {
        case .revoking(let revoking) where revoking.tokens?.isGuest == true:
            (operation, stage) = (revoking, .revoking)
        case .disconnecting(let disconnecting) where disconnecting.tokens?.isGuest == true:
            (operation, stage) = (disconnecting, .disconnecting)
        case .revoking, .disconnecting:
            // Not a guest's end: a wipe that reports back here belongs to a session long gone.
            return []
        case .signedOut, .handoff, .verifying, .active, .refreshing:
            // Superseded before the wipe reported back.
            return []
        case .modifying, .stopped:
            return outOfService()
        }
        let waiters = operation.waiters.ordered
        if case .failure(let error) = result {
            // Nothing is known to be wiped: the guest session stays, and the caller is told why.
            let reason = TransitionReason.storageFailed(error)
            guard let tokens = operation.tokens else { return inconsistency("a guest session ended without its key", resuming: waiters) }
            state = .active(Active(tokens: tokens))
            return [.transition(from: stage, to: .active, reason: reason), .resume(waiters, .failed(.storage(error)))]
        }
        self.generation += 1
        state = .signedOut
        var actions: [Action] = [.transition(from: stage, to: .signedOut, reason: .guestSessionEnded)]
        if stage == .disconnecting, let subject = operation.tokens?.subject {
            actions.append(.emit(.deleteUserData(subject: subject)))
        }
        actions.append(.resume(waiters, .done))
        return actions
    }

    /// What renews `order`'s tokens: a guest's key by bootstrapping again, anything else by a refresh.
    func renewal(_ order: RefreshOrder) -> Action {
        order.previous?.isGuest == true ? .renewGuestKey(order) : .refresh(order)
    }
}
