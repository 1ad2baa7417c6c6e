import Foundation

/// The part of a session that callers of `validAccessToken()` reach without entering the actor.
///
/// It holds a projection of the machine's handout rule, renewed by every step before anything else
/// of that step is seen, and the callers queued to join the refresh in flight. A queued caller
/// costs one lock and one suspension; when the refresh ends it is resumed straight onto its own
/// executor. The session feeds queued callers into the machine, in arrival order, at the start of
/// its next step, so every decision about them is still the machine's.
struct TokenGate<Waiter> {
    /// What a caller may do without entering the actor.
    enum Mode {
        /// Nothing: every request goes through the machine.
        case closed
        /// Active: `token` may be handed out until `dueAt`.
        case fresh(AccessToken, dueAt: Date)
        /// Refreshing: a caller joins by queuing here.
        case joining
    }

    /// Where a token request goes, as the gate saw it.
    enum Route {
        /// Hand out `token` if the caller's clock is before `dueAt`, otherwise ask the machine.
        case fresh(AccessToken, dueAt: Date)
        /// Queue to join the refresh in flight.
        case join
        /// Ask the machine.
        case machine
    }

    private(set) var mode: Mode = .closed
    /// Callers queued since the session last fed the machine.
    private(set) var joiners = WaiterList<Waiter>()
    /// Whether a task is on its way to feed callers that queued while the gate was not joining.
    private var admissionScheduled = false
    /// Whether callers may queue to join a refresh.
    var isJoining: Bool {
        if case .joining = mode { true } else { false }
    }

    /// Where a token request goes now.
    var route: Route {
        switch mode {
        case .fresh(let token, let dueAt): .fresh(token, dueAt: dueAt)
        case .joining: .join
        case .closed: .machine
        }
    }

    /// Queues a caller. Returns `true` when the gate is not joining any more and nobody is on the
    /// way yet to feed the queue into the machine: the caller must schedule that.
    mutating func enqueue(_ id: WaiterID, _ waiter: Waiter) -> Bool {
        joiners.append(id, waiter)
        if case .joining = mode { return false }
        if admissionScheduled { return false }
        admissionScheduled = true
        return true
    }

    /// Removes a queued caller (its task was cancelled); `nil` when the machine already has it.
    mutating func remove(_ id: WaiterID) -> Waiter? {
        joiners.remove(id)
    }

    /// Takes every queued caller, to feed them into the machine.
    mutating func takeJoiners() -> WaiterList<Waiter> {
        admissionScheduled = false
        defer { joiners = WaiterList() }
        return joiners
    }

    /// Sets the mode after a step. Outside `.joining` the queued callers are returned, to be fed
    /// into the machine in its new stage.
    mutating func update(_ mode: Mode) -> WaiterList<Waiter> {
        self.mode = mode
        if case .joining = mode { return WaiterList() }
        return takeJoiners()
    }
}
