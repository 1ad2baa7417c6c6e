extension SessionStateMachine {
    /// One caller's task was cancelled: only that caller is removed and resumed.
    mutating func waiterCancelled(_ id: WaiterID) -> [Action] {
        switch state {
        case .refreshing(var refreshing):
            state = .modifying
            let waiter = refreshing.waiters.remove(id)
            state = .refreshing(refreshing)
            // The refresh itself goes on: its result is still useful and it may carry a rotated token.
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .handoff(var handoff):
            state = .modifying
            guard let waiter = handoff.waiters.remove(id) else {
                state = .handoff(handoff)
                return []
            }
            if handoff.waiters.isEmpty {
                // Nobody waits for this sign-in any more: end the handoff.
                return endHandoff(handoff, reason: .handoffCancelled, error: .cancelled) + [.resume([waiter], .failed(.cancelled))]
            }
            state = .handoff(handoff)
            return [.resume([waiter], .failed(.cancelled))]
        case .verifying(var verifying):
            state = .modifying
            let waiter = verifying.waiters.remove(id)
            state = .verifying(verifying)
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .revoking(var operation):
            state = .modifying
            let waiter = operation.waiters.remove(id)
            state = .revoking(operation)
            // The journaled operation continues without this caller.
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .disconnecting(var operation):
            state = .modifying
            let waiter = operation.waiters.remove(id)
            state = .disconnecting(operation)
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .signedOut, .active:
            // The caller was already resumed before its cancellation arrived.
            return []
        case .modifying, .stopped:
            return outOfService()
        }
    }

    /// A timer the machine asked for fired; a stale id (cancelled, or of a stage left) is ignored.
    mutating func timerFired(_ id: TimerID) -> [Action] {
        if let actions = revocationQueueTimerFired(id) { return actions }
        switch state {
        case .handoff(var handoff):
            guard handoff.timer == id else { return [] }
            switch handoff.payload {
            case .device(.waitingToPoll(let polling)):
                state = .modifying
                handoff.payload = .device(.polling(polling))
                state = .handoff(handoff)
                return [.pollDeviceToken(polling.authorization, generation: generation, cancel: handoff.work)]
            case .device(.polling):
                // This poll timer already fired; its poll is in flight.
                return []
            case .authorization, .device(.requestingCode):
                return endHandoff(handoff, reason: .handoffTimedOut, error: .handoffTimedOut)
            }
        case .refreshing(var refreshing):
            guard refreshing.retryTimer == id else { return [] }
            state = .modifying
            refreshing.retryTimer = nil
            refreshing.request = CancelHandle()
            state = .refreshing(refreshing)
            return [renewal(refreshing.order(generation: generation))]
        case .revoking(let operation) where operation.logout != nil:
            guard let logout = operation.logout, logout.timer == id else { return [] }
            return finishProviderLogout(operation, logout: logout, outcome: .timedOut)
        case .revoking(var operation):
            guard operation.retryTimer == id else { return [] }
            state = .modifying
            operation.retryTimer = nil
            state = .revoking(operation)
            return [.revoke(generation: generation, attempt: operation.attempt)]
        case .disconnecting(var operation):
            guard operation.retryTimer == id else { return [] }
            state = .modifying
            operation.retryTimer = nil
            state = .disconnecting(operation)
            return [.disconnect(generation: generation, attempt: operation.attempt)]
        case .signedOut, .verifying, .active:
            // A timer of a stage already left.
            return []
        case .modifying, .stopped:
            return outOfService()
        }
    }
}
