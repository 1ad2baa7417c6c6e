import Foundation
import SessionKitCore

@testable import SessionKit

/// A model of the session's shell around the real machine: one step of the machine per input
/// (under the lock), its actions queued, and one runner that performs the queue in order, one
/// action per explorer step, so any input may come between a step and the performance of its
/// actions. Performing work spawns a child of the task owner; a child reports back as an input,
/// and a child whose cancel token was cancelled may still report (it raced the cancellation) or
/// end silently. `shutdown()` steps the machine, then ends every child and refuses every later spawn.
///
/// What it abstracts: the real `TaskOwner`, `CancelToken` and locks are not run; threads are the
/// interleaving of explorer steps (the lock makes each machine step atomic; the runner performs
/// one action at a time, in queue order, as `Session.performPending()` does); a child's body is
/// one report. The inputs are a subset of the machine model's: sign-in, a token request, sign-out,
/// a restore of a due session, cancellations, the results of the work in flight, and shutdown.
struct ShellModel: ExplorableModel {
    typealias Machine = SessionMachineModel.Machine

    var name: String { "session shell" }

    enum Kind: Int {
        case presenter = 1
        case exchange, refresh, revoke, timer, storeWork
    }

    struct Child {
        var kind: Kind
        var generation: UInt64
        var token: ObjectIdentifier?
        var timer: UInt64 = 0
        var cancelled = false
    }

    struct State {
        var machine = SessionMachineModel().initialState().machine
        var queue: [Machine.Action] = []
        var children: [Child] = []
        var waiting: Set<Int> = []
        var nextCaller = 1
        var nextTokens = 1
        var nextAttempt = 1
        var shutDown = false
        var now = 0.0
    }

    enum Input {
        case signIn, tokenRequested, signOut, restoreDue
        case cancel(Int)
        case perform
        case report(child: Int, ok: Bool)
        case endsSilently(child: Int)
        case shutDown
    }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        var inputs: [Input] = []
        if state.waiting.count < 2 {
            inputs += [.signIn, .tokenRequested, .signOut]
            if state.machine.stage == .signedOut && !state.shutDown { inputs.append(.restoreDue) }
        }
        inputs += state.waiting.sorted().map { .cancel($0) }
        if !state.queue.isEmpty { inputs.append(.perform) }
        for (index, child) in state.children.enumerated() {
            inputs.append(.report(child: index, ok: true))
            if child.kind != .timer && child.kind != .storeWork { inputs.append(.report(child: index, ok: false)) }
            if child.cancelled { inputs.append(.endsSilently(child: index)) }
        }
        if !state.shutDown { inputs.append(.shutDown) }
        return inputs
    }

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        var violations: [Violation] = []
        let date = SessionMachineModel.start.addingTimeInterval(state.now)
        func call() -> (Int, WaiterID) {
            let id = state.nextCaller
            state.nextCaller += 1
            state.waiting.insert(id)
            return (id, WaiterID(raw: UInt64(id)))
        }
        switch input {
        case .signIn:
            let (id, waiter) = call()
            let attempt = SessionMachineModel.attempt(state.nextAttempt)
            state.nextAttempt += 1
            state.queue += state.machine.signIn(attempt, id: waiter, waiter: id)
        case .tokenRequested:
            let (id, waiter) = call()
            state.queue += state.machine.tokenRequested(id: waiter, waiter: id, now: date, force: false)
        case .signOut:
            let (id, waiter) = call()
            state.queue += state.machine.signOut(id: waiter, waiter: id)
        case .restoreDue:
            let (id, waiter) = call()
            let tokens = ModelTokens(name: "T\(state.nextTokens)", accessTokenExpiresAt: date.addingTimeInterval(30), subject: "alice")
            state.nextTokens += 1
            state.queue += state.machine.restoreLoaded(.session(tokens), now: date, id: waiter, waiter: id)
        case .cancel(let id):
            state.queue += state.machine.waiterCancelled(WaiterID(raw: UInt64(id)))
        case .shutDown:
            // Session.shutdown(): the machine answers every caller and drops its timers, then the
            // owner refuses new work and ends every child before it returns.
            state.queue += state.machine.shutDown()
            state.shutDown = true
            state.children.removeAll()
        case .endsSilently(let index):
            state.children.remove(at: index)
        case .report(let index, let ok):
            let child = state.children.remove(at: index)
            state.queue += report(child, ok: ok, state: &state, date: date)
        case .perform:
            let action = state.queue.removeFirst()
            violations += perform(action, state: &state)
        }
        // No child outlives shutdown().
        if state.shutDown && !state.children.isEmpty {
            violations.append(.init("noChildOutlivesShutdown", "\(state.children.count) children run after shutdown()"))
        }
        if state.queue.isEmpty {
            // The runner caught up: every caller still waiting is held by the machine.
            let held = Set(SessionMachineModel().heldCallers(state.machine))
            if held != state.waiting {
                violations.append(
                    .init(
                        "waitersAnsweredOnce",
                        "with nothing left to perform, callers \(state.waiting.sorted()) wait and the machine holds \(held.sorted())"))
            }
            // No work of a stage that ended still runs: it was cancelled by the actions performed.
            let live = Set(SessionMachineModel().liveTimers(state.machine))
            for child in state.children where !child.cancelled {
                let ended: Bool
                switch child.kind {
                case .presenter, .refresh: ended = child.generation != state.machine.generation
                case .timer: ended = !live.contains(child.timer)
                case .exchange, .revoke, .storeWork: ended = false
                }
                if ended && child.kind == .timer {
                    violations.append(
                        .init(
                            "noActionAfterStageEnded",
                            "timer \(child.timer) runs, but the machine no longer waits for it and it was never cancelled"))
                } else if ended {
                    violations.append(
                        .init(
                            "noActionAfterStageEnded",
                            "\(child.kind) work ordered in generation \(child.generation) still runs in generation \(state.machine.generation)"
                        ))
                }
            }
        }
        return violations
    }

    private func report(_ child: Child, ok: Bool, state: inout State, date: Date) -> [Machine.Action] {
        switch child.kind {
        case .presenter:
            return state.machine.presenterFailed(ok ? .cancelled : .presentationFailed("gone"), generation: child.generation)
        case .exchange:
            guard ok else { return state.machine.exchangeFailed(.verificationFailed(.badSignature), generation: child.generation) }
            let tokens = ModelTokens(name: "T\(state.nextTokens)", accessTokenExpiresAt: date.addingTimeInterval(3600), subject: "alice")
            state.nextTokens += 1
            return state.machine.exchangeSucceeded(tokens, generation: child.generation)
        case .refresh:
            guard ok else {
                return state.machine.refreshFailed(
                    .transient(SessionMachineModel.unavailable, retryIn: .seconds(5)), generation: child.generation, now: date)
            }
            let tokens = ModelTokens(name: "T\(state.nextTokens)", accessTokenExpiresAt: date.addingTimeInterval(3600), subject: "alice")
            state.nextTokens += 1
            return state.machine.refreshSucceeded(tokens, generation: child.generation)
        case .revoke:
            return ok
                ? state.machine.serverOperationConfirmed(generation: child.generation, subject: nil)
                : state.machine.serverOperationFailed(
                    .transient(SessionMachineModel.unavailableError, retryIn: .seconds(5)), generation: child.generation)
        case .timer:
            return state.machine.timerFired(TimerID(raw: child.timer))
        case .storeWork:
            return []
        }
    }

    /// The runner performs one action, as `Session.perform(_:index:)` does.
    private func perform(_ action: Machine.Action, state: inout State) -> [Violation] {
        var violations: [Violation] = []
        func spawn(_ child: Child) {
            // The owner refuses work once shut down.
            if !state.shutDown { state.children.append(child) }
        }
        func cancel(_ token: CancelToken) {
            for index in state.children.indices where state.children[index].token == ObjectIdentifier(token) {
                state.children[index].cancelled = true
            }
        }
        switch action {
        case .resume(let waiters, _):
            for waiter in waiters where state.waiting.remove(waiter) == nil {
                violations.append(.init("waitersAnsweredOnce", "caller \(waiter) was resumed a second time"))
            }
        case .startTimer(let id, _):
            spawn(Child(kind: .timer, generation: state.machine.generation, token: ObjectIdentifier(id.cancel.token), timer: id.raw))
        case .cancelTimer(let id): cancel(id.cancel.token)
        case .present(_, let generation, let handle), .presentEndSession(_, let generation, let handle):
            spawn(Child(kind: .presenter, generation: generation, token: ObjectIdentifier(handle.token)))
        case .cancelPresenter(let handle), .cancelRefresh(let handle): cancel(handle.token)
        case .exchangeCode(_, _, let generation): spawn(Child(kind: .exchange, generation: generation))
        case .refresh(let order), .renewGuestKey(let order):
            spawn(Child(kind: .refresh, generation: order.generation, token: ObjectIdentifier(order.cancel.token)))
        case .revoke(let generation, _), .disconnect(let generation, _): spawn(Child(kind: .revoke, generation: generation))
        case .discardLateTokens, .deferRevocation, .revokeQueued, .bootstrapGuest, .endGuestSession, .resetGuestCredential:
            spawn(Child(kind: .storeWork, generation: state.machine.generation))
        case .transition, .emit, .requestDeviceCode, .pollDeviceToken, .presentDeviceCode, .verifyDeviceTokens:
            break
        }
        return violations
    }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        var model = SessionMachineModel.State()
        model.machine = state.machine
        model.now = state.now
        SessionMachineModel().canonicalize(model, into: &form)
        form.tag(30)
        for action in state.queue { form.write(Self.code(action)) }
        form.tag(31)
        let generation = state.machine.generation
        let children = state.children.map { [$0.kind.rawValue, $0.generation == generation ? 1 : 0, $0.cancelled ? 1 : 0] }
        for child in children.sorted(by: { $0.lexicographicallyPrecedes($1) }) { for value in child { form.write(value) } }
        form.tag(32)
        form.write(state.waiting.count)
        form.write(state.shutDown)
    }

    static func code(_ action: Machine.Action) -> Int {
        switch action {
        case .transition: 1
        case .resume(let waiters, _): 100 + waiters.count
        case .emit: 3
        case .startTimer: 4
        case .cancelTimer: 5
        case .present: 6
        case .presentDeviceCode: 7
        case .presentEndSession: 8
        case .cancelPresenter: 9
        case .exchangeCode: 10
        case .requestDeviceCode: 11
        case .pollDeviceToken: 12
        case .verifyDeviceTokens: 13
        case .refresh: 14
        case .cancelRefresh: 15
        case .discardLateTokens: 16
        case .bootstrapGuest: 17
        case .renewGuestKey: 18
        case .resetGuestCredential: 19
        case .endGuestSession: 20
        case .revoke: 21
        case .disconnect: 22
        case .deferRevocation: 23
        case .revokeQueued: 24
        }
    }

    func script(_ path: [Input]) -> String {
        var state = initialState()
        var lines: [String] = []
        for input in path {
            switch input {
            case .signIn: lines.append("signIn() [caller \(state.nextCaller)]")
            case .tokenRequested: lines.append("validAccessToken() [caller \(state.nextCaller)]")
            case .signOut: lines.append("signOut() [caller \(state.nextCaller)]")
            case .restoreDue: lines.append("restore() finds a due session [caller \(state.nextCaller)]")
            case .cancel(let id): lines.append("caller \(id) cancelled")
            case .perform: lines.append("runner performs \(MachineLine.describe(state.queue[0]))")
            case .report(let index, let ok):
                let child = state.children[index]
                lines.append("\(child.kind) child (generation \(child.generation)) reports \(ok ? "success" : "failure")")
            case .endsSilently(let index): lines.append("cancelled \(state.children[index].kind) child ends")
            case .shutDown: lines.append("shutdown()")
            }
            _ = step(&state, input)
        }
        return lines.joined(separator: "; ")
    }
}

/// Short names of the machine's actions, for the shell model's scripts.
enum MachineLine {
    static func describe(_ action: SessionMachineModel.Machine.Action) -> String {
        switch action {
        case .transition(let from, let to, _): "transition(\(from)→\(to))"
        case .resume(let waiters, _): "resume(\(waiters))"
        case .startTimer(let id, _): "startTimer(\(id.raw))"
        case .cancelTimer(let id): "cancelTimer(\(id.raw))"
        case .refresh(let order): "refresh(gen \(order.generation))"
        case .revoke(let generation, _): "revoke(gen \(generation))"
        case .exchangeCode(_, _, let generation): "exchangeCode(gen \(generation))"
        case .present(_, let generation, _): "present(gen \(generation))"
        case .cancelPresenter: "cancelPresenter"
        case .cancelRefresh: "cancelRefresh"
        case .emit: "emit"
        case .disconnect(let generation, _): "disconnect(gen \(generation))"
        case .discardLateTokens: "discardLateTokens"
        case .deferRevocation: "deferRevocation"
        case .revokeQueued: "revokeQueued"
        default: "action \(ShellModel.code(action))"
        }
    }
}
