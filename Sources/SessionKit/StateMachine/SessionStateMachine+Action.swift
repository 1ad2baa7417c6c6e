/// What the action types of every input share: they can publish an ``SessionStateMachine/Output``.
///
/// Each input's action type is its own enum, so its signature says what the input can lead to;
/// the shared outputs (stage changes, resumed callers, events) are spelled the same everywhere.
protocol MachineAction {
    associatedtype Tokens: MachineTokens
    associatedtype Waiter
    static func output(_ output: SessionStateMachine<Tokens, Waiter>.Output) -> Self
}

extension MachineAction {
    static func transition(from: SessionStage, to: SessionStage, reason: TransitionReason) -> Self {
        .output(.transition(from: from, to: to, reason: reason))
    }

    static func resume(_ waiters: [Waiter], _ result: WaiterResult<Tokens>) -> Self {
        .output(.resume(waiters, result))
    }

    static func emit(_ event: SessionEvent) -> Self {
        .output(.emit(event))
    }
}

/// An action type of an input that can end the handoff (timeout, cancellation, refusal, sign-out).
protocol EndsHandoff: MachineAction {
    static func cancelTimer(_ id: TimerID) -> Self
    static var cancelPresenter: Self { get }
}
