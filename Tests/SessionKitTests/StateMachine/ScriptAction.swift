import Foundation

@testable import SessionKit

/// Every input's action type in one vocabulary, so scripts print and inspect them alike.
enum ScriptAction {
    typealias Machine = SessionStateMachine<ScriptTokens, Int>

    case present(SignInAttempt, generation: UInt64)
    case cancelPresenter
    case startTimer(TimerID, after: Duration)
    case cancelTimer(TimerID)
    case exchangeCode(code: String, attempt: SignInAttempt, generation: UInt64)
    case refresh(Machine.RefreshOrder)
    case cancelRefresh
    case revoke(generation: UInt64, attempt: Int)
    case disconnect(generation: UInt64, attempt: Int)
    case deferRevocation
    case discardLateTokens(ScriptTokens)
    case resume([Int], WaiterResult<ScriptTokens>)
    case transition(from: SessionStage, to: SessionStage, reason: TransitionReason)
    case emit(SessionEvent)

    init(_ output: Machine.Output) {
        switch output {
        case .transition(let from, let to, let reason): self = .transition(from: from, to: to, reason: reason)
        case .resume(let waiters, let result): self = .resume(waiters, result)
        case .emit(let event): self = .emit(event)
        }
    }
}

/// An input's action type a script can record.
protocol ScriptRecordable: MachineAction {
    var scriptAction: ScriptAction { get }
}

extension SessionStateMachine.HandoffAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .present(let attempt, let generation): .present(attempt, generation: generation)
        case .cancelPresenter: .cancelPresenter
        case .startTimer(let id, let after): .startTimer(id, after: after)
        case .cancelTimer(let id): .cancelTimer(id)
        case .exchangeCode(let code, let attempt, let generation): .exchangeCode(code: code, attempt: attempt, generation: generation)
        case .deferRevocation: .deferRevocation
        }
    }
}

extension SessionStateMachine.ExchangeAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .discardLateTokens(let tokens): .discardLateTokens(tokens)
        }
    }
}

extension SessionStateMachine.TokenAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .refresh(let order): .refresh(order)
        }
    }
}

extension SessionStateMachine.RefreshAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .startTimer(let id, let after): .startTimer(id, after: after)
        case .discardLateTokens(let tokens): .discardLateTokens(tokens)
        }
    }
}

extension SessionStateMachine.EndingAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .cancelTimer(let id): .cancelTimer(id)
        case .cancelPresenter: .cancelPresenter
        case .cancelRefresh: .cancelRefresh
        case .revoke(let generation, let attempt): .revoke(generation: generation, attempt: attempt)
        case .disconnect(let generation, let attempt): .disconnect(generation: generation, attempt: attempt)
        }
    }
}

extension SessionStateMachine.ServerOperationAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .startTimer(let id, let after): .startTimer(id, after: after)
        case .refresh(let order): .refresh(order)
        }
    }
}

extension SessionStateMachine.RestoreAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .refresh(let order): .refresh(order)
        case .revoke(let generation, let attempt): .revoke(generation: generation, attempt: attempt)
        case .disconnect(let generation, let attempt): .disconnect(generation: generation, attempt: attempt)
        }
    }
}

extension SessionStateMachine.CancellationAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .cancelTimer(let id): .cancelTimer(id)
        case .cancelPresenter: .cancelPresenter
        }
    }
}

extension SessionStateMachine.TimerAction: ScriptRecordable where Tokens == ScriptTokens, Waiter == Int {
    var scriptAction: ScriptAction {
        switch self {
        case .output(let output): ScriptAction(output)
        case .cancelTimer(let id): .cancelTimer(id)
        case .cancelPresenter: .cancelPresenter
        case .refresh(let order): .refresh(order)
        case .revoke(let generation, let attempt): .revoke(generation: generation, attempt: attempt)
        case .disconnect(let generation, let attempt): .disconnect(generation: generation, attempt: attempt)
        }
    }
}
