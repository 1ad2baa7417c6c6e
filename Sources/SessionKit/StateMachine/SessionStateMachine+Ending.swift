import Foundation
import SessionKitCore

extension SessionStateMachine {
    /// The app called `signOut()`.
    mutating func signOut(id: WaiterID, waiter: Waiter) -> [Action] {
        switch state {
        case .active(let active) where active.tokens.isGuest:
            return endGuest(active.tokens, to: .revoking, from: .active, id: id, waiter: waiter, first: [])
        case .refreshing(let refreshing) where refreshing.previous?.isGuest == true:
            guard let guest = refreshing.previous else {
                return inconsistency("a guest renewal without the guest's key", resuming: [waiter])
            }
            return endGuest(
                guest, to: .revoking, from: .refreshing, id: id, waiter: waiter, first: abandon(refreshing, error: .signOutInProgress))
        case .handoff(let handoff) where handoff.guest != nil:
            // The sign-in is cancelled, back to the guest session, which is then signed out.
            return endHandoff(handoff, reason: .handoffCancelled, error: .cancelled) + signOut(id: id, waiter: waiter)
        case .verifying(let verifying) where verifying.guest != nil:
            guard let guest = verifying.guest else { return inconsistency("a sign-in from a guest without the guest", resuming: [waiter]) }
            // The exchange in flight becomes stale; its tokens are discarded and revoked when they arrive.
            generation += 1
            state = .active(Active(tokens: guest))
            return [
                .transition(from: .verifying, to: .active, reason: .handoffCancelled),
                .resume(verifying.waiters.ordered, .failed(.cancelled)),
            ] + signOut(id: id, waiter: waiter)
        case .verifying(let verifying) where verifying.bootstrapsGuest:
            // The bootstrap in flight becomes stale (it writes nothing more, and its key is
            // discarded when it arrives); the device credential goes, as at any guest's sign-out.
            generation += 1
            state = .signedOut
            return [
                .transition(from: .verifying, to: .signedOut, reason: .guestSignOutRequested),
                .resetGuestCredential,
                .resume(verifying.waiters.ordered, .failed(.cancelled)),
                .resume([waiter], .done),
            ]
        case .active(let active):
            return beginServerOperation(.revoking, from: .active, tokens: active.tokens, id: id, waiter: waiter, first: [])
        case .refreshing(let refreshing):
            return beginServerOperation(
                .revoking, from: .refreshing, tokens: refreshing.previous, id: id, waiter: waiter,
                first: abandon(refreshing, error: .signOutInProgress))
        case .revoking(var operation):
            state = .modifying
            operation.waiters.append(id, waiter)
            state = .revoking(operation)
            return []
        case .signedOut:
            // Signing out when signed out is already done.
            return [.resume([waiter], .done)]
        case .handoff(let handoff):
            return endHandoff(handoff, reason: .handoffCancelled, error: .cancelled) + [.resume([waiter], .done)]
        case .verifying(let verifying):
            // The exchange in flight becomes stale; its tokens are discarded and revoked when they arrive.
            generation += 1
            state = .signedOut
            return [
                .transition(from: .verifying, to: .signedOut, reason: .handoffCancelled),
                .resume(verifying.waiters.ordered, .failed(.cancelled)),
                .resume([waiter], .done),
            ]
        case .disconnecting:
            return [.resume([waiter], .failed(.accountDeletionInProgress))]
        case .modifying, .stopped:
            return outOfService(waiter: waiter)
        }
    }

    /// The app called `deleteAccount()`.
    mutating func deleteAccount(id: WaiterID, waiter: Waiter) -> [Action] {
        switch state {
        case .active(let active) where active.tokens.isGuest:
            // A guest has no account connection at the provider: deleting it ends it locally.
            return endGuest(active.tokens, to: .disconnecting, from: .active, id: id, waiter: waiter, first: [])
        case .refreshing(let refreshing) where refreshing.previous?.isGuest == true:
            guard let guest = refreshing.previous else {
                return inconsistency("a guest renewal without the guest's key", resuming: [waiter])
            }
            return endGuest(
                guest, to: .disconnecting, from: .refreshing, id: id, waiter: waiter,
                first: abandon(refreshing, error: .accountDeletionInProgress))
        case .active(let active):
            return beginServerOperation(.disconnecting, from: .active, tokens: active.tokens, id: id, waiter: waiter, first: [])
        case .refreshing(let refreshing):
            return beginServerOperation(
                .disconnecting, from: .refreshing, tokens: refreshing.previous, id: id, waiter: waiter,
                first: abandon(refreshing, error: .accountDeletionInProgress))
        case .disconnecting(var operation):
            state = .modifying
            operation.waiters.append(id, waiter)
            state = .disconnecting(operation)
            return []
        case .signedOut, .handoff, .verifying:
            return [.resume([waiter], .failed(.notSignedIn))]
        case .revoking:
            return [.resume([waiter], .failed(.signOutInProgress))]
        case .modifying, .stopped:
            return outOfService(waiter: waiter)
        }
    }

    /// The refresh in flight is given up for a server-first operation: its callers are told why.
    func abandon(_ refreshing: Refreshing, error: SessionError) -> [Action] {
        [.cancelRefresh(refreshing.request), .resume(refreshing.waiters.ordered, .failed(error))]
            + (refreshing.retryTimer.map { [.cancelTimer($0)] } ?? [])
    }

    private enum ServerStage { case revoking, disconnecting }

    private mutating func beginServerOperation(
        _ kind: ServerStage, from stage: SessionStage, tokens: Tokens?, id: WaiterID, waiter: Waiter, first: [Action]
    ) -> [Action] {
        generation += 1
        let operation = ServerOperation(tokens: tokens, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter))
        switch kind {
        case .revoking:
            state = .revoking(operation)
            return first + [
                .transition(from: stage, to: .revoking, reason: .signOutRequested), .revoke(generation: generation, attempt: 1),
            ]
        case .disconnecting:
            state = .disconnecting(operation)
            return first + [
                .transition(from: stage, to: .disconnecting, reason: .accountDeletionRequested),
                .disconnect(generation: generation, attempt: 1),
            ]
        }
    }

    /// The provider confirmed the revocation or the disconnect, and the store is already wiped.
    /// `endSession`: for a sign-out, whether the provider's browser session is ended next.
    mutating func serverOperationConfirmed(
        generation: UInt64, subject: String?, endSession: EndSessionPlan = .notRequested
    ) -> [Action] {
        guard generation == self.generation, !endsGuest else { return [] }
        switch state {
        case .revoking(let operation):
            guard operation.logout == nil else {
                // The revocation was confirmed before; a repeated confirmation changes nothing.
                return []
            }
            return finishSignOut(operation, reason: .revocationConfirmed, plan: endSession)
        case .disconnecting(let operation):
            self.generation += 1
            state = .signedOut
            var actions: [Action] = [.transition(from: .disconnecting, to: .signedOut, reason: .accountDeleted)]
            if let subject = subject ?? operation.tokens?.subject {
                actions.append(.emit(.deleteUserData(subject: subject)))
            }
            actions.append(.resume(operation.waiters.ordered, .done))
            return actions
        case .signedOut, .handoff, .verifying, .active, .refreshing:
            // The operation was superseded before its confirmation arrived.
            return []
        case .modifying, .stopped:
            return outOfService()
        }
    }

    /// A revocation or a disconnect failed, as the owner classified it. `endSession`: for a
    /// sign-out wiped without the provider's word, whether its browser session is ended next.
    mutating func serverOperationFailed(
        _ failure: ServerOperationFailure, generation: UInt64, endSession: EndSessionPlan = .notRequested
    ) -> [Action] {
        guard generation == self.generation, !endsGuest else { return [] }
        switch state {
        case .revoking(let operation) where operation.logout != nil:
            // Revoked and wiped already: only the provider logout is left, and it ends on its own inputs.
            return []
        case .revoking(let operation):
            switch failure {
            case .transient(let why, let delay):
                return retry(operation, stage: .revoking, why: why, after: delay)
            case .cannotTell(let why):
                return finishSignOut(operation, reason: .signedOutLocallyOnly(.unsupported(why)), plan: endSession)
            case .refused(let status):
                let refusal = ProviderError.http(status: status, error: nil, retryAfterSeconds: nil, excerpt: "")
                return finishSignOut(operation, reason: .signedOutLocallyOnly(.provider(refusal)), plan: endSession)
            case .storage(let error):
                return storageFailed(operation, stage: .revoking, error: error)
            case .inconsistent:
                // The procedure asserted already (debug builds stop there).
                return stopAfterInconsistency(resuming: [])
            }
        case .disconnecting(let operation):
            switch failure {
            case .transient(let why, let delay):
                return retry(operation, stage: .disconnecting, why: why, after: delay)
            case .refused(let status):
                return endDisconnecting(
                    operation, reason: .accountDeletionRefused(status: status), error: .accountDeletionRefused(status: status))
            case .cannotTell(let why):
                return endDisconnecting(operation, reason: .accountDeletionUnavailable(why), error: .unsupported(why))
            case .storage(let error):
                return storageFailed(operation, stage: .disconnecting, error: error)
            case .inconsistent:
                // The procedure asserted already (debug builds stop there).
                return stopAfterInconsistency(resuming: [])
            }
        case .signedOut, .handoff, .verifying, .active, .refreshing:
            // Superseded before the answer arrived.
            return []
        case .modifying, .stopped:
            return outOfService()
        }
    }

    /// Whether the stage ends a guest session, which asks the provider nothing: a server's answer
    /// cannot be this stage's.
    private var endsGuest: Bool {
        switch state {
        case .revoking(let operation), .disconnecting(let operation): operation.tokens?.isGuest == true
        default: false
        }
    }

    private mutating func retry(_ operation: ServerOperation, stage: SessionStage, why: ProviderError, after delay: Duration)
        -> [Action]
    {
        var operation = operation
        state = .modifying
        let timer = makeTimer()
        operation.attempt += 1
        operation.retryTimer = timer
        state = stage == .revoking ? .revoking(operation) : .disconnecting(operation)
        return [
            .transition(
                from: stage, to: stage,
                reason: .retrying(attempt: operation.attempt - 1, afterSeconds: Self.seconds(delay), because: .provider(why))),
            .startTimer(timer, after: delay),
        ]
    }

    /// The store could not be read to journal the operation, or could not be written to complete
    /// it. A locked store (the device is locked; nothing was sent yet) leaves the session as it
    /// was, and the error says to try again. Any other failure ends the session in memory: after
    /// a confirmed revocation or disconnect the tokens are dead at the provider, and a store that
    /// cannot be read would not restore them at the next launch either. The error says what the
    /// store did; whatever the store still holds is the journal's to finish at the next launch.
    private mutating func storageFailed(_ operation: ServerOperation, stage: SessionStage, error: CredentialStoreError)
        -> [Action]
    {
        let waiters = operation.waiters.ordered
        let reason = TransitionReason.storageFailed(error)
        if case .locked = error, let tokens = operation.tokens {
            state = .active(Active(tokens: tokens))
            return [.transition(from: stage, to: .active, reason: reason), .resume(waiters, .failed(.storage(error)))]
        }
        generation += 1
        state = .signedOut
        return [.transition(from: stage, to: .signedOut, reason: reason), .resume(waiters, .failed(.storage(error)))]
    }

    /// The store was read but the operation could not be journaled: it goes on, and the app is told
    /// that a relaunch will not resume it.
    mutating func serverOperationNotJournaled(_ error: CredentialStoreError, generation: UInt64) -> [Action] {
        guard generation == self.generation else { return [] }
        let reason = TransitionReason.notJournaled(error)
        switch state {
        case .revoking: return [.transition(from: .revoking, to: .revoking, reason: reason)]
        case .disconnecting: return [.transition(from: .disconnecting, to: .disconnecting, reason: reason)]
        case .signedOut, .handoff, .verifying, .active, .refreshing:
            // Superseded before the report arrived.
            return []
        case .modifying, .stopped:
            return outOfService()
        }
    }

    /// The account stays: back to the verified tokens, or, when the deletion was resumed from the
    /// journal at launch (no verified tokens in memory), on to a restoring refresh.
    private mutating func endDisconnecting(_ operation: ServerOperation, reason: TransitionReason, error: SessionError)
        -> [Action]
    {
        let waiters = operation.waiters.ordered
        if let tokens = operation.tokens {
            state = .active(Active(tokens: tokens))
            return [.transition(from: .disconnecting, to: .active, reason: reason), .resume(waiters, .failed(error))]
        }
        let refreshing = Refreshing(previous: nil, waiters: WaiterList(), attempt: 1, retryTimer: nil)
        state = .refreshing(refreshing)
        return [
            .transition(from: .disconnecting, to: .refreshing, reason: reason),
            .resume(waiters, .failed(error)),
            .refresh(refreshing.order(generation: generation)),
        ]
    }
}
