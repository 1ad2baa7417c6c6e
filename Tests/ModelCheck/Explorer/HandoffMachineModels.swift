import Foundation
import SessionKitCore

@testable import SessionKitHandoffs

/// Work a handoff machine ordered and the model keeps in flight: its kind, the attempt it belongs
/// to, the cancel token the machine handed out with it, and whether that token was cancelled.
struct HandoffWork {
    var kind: Int
    var attempt: UInt64
    var token: ObjectIdentifier?
    var cancelled = false
}

/// The 1Password access-request machine, with callers that start, complete, fail, time out, are
/// cancelled and shut down in every order, and presenter and timer results that arrive late.
struct AccessRequestMachineModel: ExplorableModel {
    typealias Machine = AccessRequestMachine<UInt64>

    static let presentation = 1
    static let timer = 2

    var name: String { "access-request machine" }

    struct State {
        var machine = Machine(timeout: .seconds(30))
        var waiting: Set<UInt64> = []
        var work: [HandoffWork] = []
        var nextCaller: UInt64 = 1
    }

    enum Input {
        case start
        case completed(work: Int, chose: Bool)
        case failed(work: Int, cancelled: Bool)
        case timerFired(work: Int)
        case cancel(UInt64)
        case shutDown
    }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        var inputs: [Input] = state.waiting.count < 2 ? [.start] : []
        for (index, work) in state.work.enumerated() {
            if work.kind == Self.presentation {
                inputs += [
                    .completed(work: index, chose: true), .completed(work: index, chose: false), .failed(work: index, cancelled: true),
                ]
                inputs.append(.failed(work: index, cancelled: false))
            } else {
                inputs.append(.timerFired(work: index))
            }
        }
        inputs += state.waiting.sorted().map { .cancel($0) }
        inputs.append(.shutDown)
        return inputs
    }

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        let before = state.machine
        var late = false
        let actions: [Machine.Action]
        switch input {
        case .start:
            let id = state.nextCaller
            state.nextCaller += 1
            state.waiting.insert(id)
            let request = AccessRequest(reference: AccessRequestReference("reference-\(id)"))
            actions = state.machine.start(request, attempt: id, waiter: id)
        case .completed(let index, let chose):
            let work = state.work.remove(at: index)
            late = !Self.isCurrent(work.attempt, before)
            let completion = AccessRequestCompletion(completed: chose)
            actions = state.machine.presenterCompleted(completion, attempt: work.attempt)
        case .failed(let index, let cancelled):
            let work = state.work.remove(at: index)
            late = !Self.isCurrent(work.attempt, before)
            actions = state.machine.presenterFailed(cancelled ? .cancelled : .unavailable("gone"), attempt: work.attempt)
        case .timerFired(let index):
            let work = state.work.remove(at: index)
            late = !Self.isCurrent(work.attempt, before)
            actions = state.machine.timerFired(attempt: work.attempt)
        case .cancel(let id):
            actions = state.machine.callerCancelled(attempt: id)
        case .shutDown:
            actions = state.machine.shutDown()
        }
        var violations: [Violation] = []
        for action in actions {
            switch action {
            case .present(_, let attempt, let cancel):
                state.work.append(HandoffWork(kind: Self.presentation, attempt: attempt, token: ObjectIdentifier(cancel)))
            case .startTimer(let attempt, _, let cancel):
                state.work.append(HandoffWork(kind: Self.timer, attempt: attempt, token: ObjectIdentifier(cancel)))
            case .cancelPresentation(_, let token), .cancelTimer(_, let token):
                // The cancelled work may still report (it raced the cancellation); it is marked.
                for index in state.work.indices where state.work[index].token == ObjectIdentifier(token) {
                    state.work[index].cancelled = true
                }
            case .resume(let waiter, _):
                if state.waiting.remove(waiter) == nil {
                    violations.append(.init("waitersAnsweredOnce", "caller \(waiter) was answered a second time"))
                }
            case .emit:
                break
            }
        }
        if case .shutDown = input { state.work.removeAll() }
        if late && !actions.isEmpty {
            violations.append(.init("lateResultsDropped", "a result of an attempt that already ended did something"))
        }
        let held: Set<UInt64> =
            if case .presenting(let presenting) = state.machine.state { [presenting.waiter] } else { [] }
        if held != state.waiting {
            violations.append(.init("waitersAnsweredOnce", "callers waiting \(state.waiting.sorted()), the machine holds \(held.sorted())"))
        }
        // Every piece of work started is ended, by its result or its cancellation.
        let live = Set(state.work.filter { !$0.cancelled }.compactMap(\.token))
        var owned: Set<ObjectIdentifier> = []
        if case .presenting(let presenting) = state.machine.state {
            owned.insert(ObjectIdentifier(presenting.presentation))
            if let timer = presenting.timer { owned.insert(ObjectIdentifier(timer)) }
        }
        if !live.isSubset(of: owned) {
            violations.append(.init("timersFiredOrCancelled", "work or a timer runs that the machine no longer holds and never cancelled"))
        }
        return violations
    }

    static func isCurrent(_ attempt: UInt64, _ machine: Machine) -> Bool {
        if case .presenting(let presenting) = machine.state { return presenting.attempt == attempt }
        return false
    }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        // Callers relabelled: the one presenting (if any) is 1, every other waiting caller 2.
        switch state.machine.state {
        case .idle: form.tag(1)
        case .presenting: form.tag(2)
        case .stopped: form.tag(3)
        }
        form.write(state.waiting.count)
        let current: UInt64? = if case .presenting(let presenting) = state.machine.state { presenting.attempt } else { nil }
        let work = state.work.map { [$0.kind, $0.attempt == current ? 1 : 0, $0.cancelled ? 1 : 0] }
        for item in work.sorted(by: { $0.lexicographicallyPrecedes($1) }) { for value in item { form.write(value) } }
    }

    func script(_ path: [Input]) -> String {
        var state = initialState()
        var lines = ["var machine = AccessRequestMachine<UInt64>(timeout: .seconds(30))"]
        for input in path {
            switch input {
            case .start:
                lines.append(
                    "_ = machine.start(AccessRequest(reference: AccessRequestReference(\"reference-\(state.nextCaller)\")), attempt: \(state.nextCaller), waiter: \(state.nextCaller))"
                )
            case .completed(let index, let chose):
                lines.append(
                    "_ = machine.presenterCompleted(AccessRequestCompletion(completed: \(chose)), attempt: \(state.work[index].attempt))")
            case .failed(let index, let cancelled):
                lines.append(
                    "_ = machine.presenterFailed(\(cancelled ? ".cancelled" : ".unavailable(\"gone\")"), attempt: \(state.work[index].attempt))"
                )
            case .timerFired(let index): lines.append("_ = machine.timerFired(attempt: \(state.work[index].attempt))")
            case .cancel(let id): lines.append("_ = machine.callerCancelled(attempt: \(id))")
            case .shutDown: lines.append("_ = machine.shutDown()")
            }
            _ = step(&state, input)
        }
        return lines.joined(separator: "; ")
    }
}

/// The credential-import machine, with callers asking for two tokens (joining, queueing), a
/// used-token ledger that answers new, used or failed, imports that finish, fail or time out,
/// cancellations and shutdown in every order, and results that arrive late.
struct CredentialImportMachineModel: ExplorableModel {
    typealias Machine = CredentialImportMachine<UInt64>

    static let mark = 1
    static let importing = 2
    static let timer = 3
    static let tokens = [
        CredentialImportToken(UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!),
        CredentialImportToken(UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!),
    ]

    var name: String { "credential-import machine" }

    struct State {
        var machine = Machine(timeout: .seconds(30))
        /// Waiting callers and the token each asked for.
        var waiting: [UInt64: Int] = [:]
        var work: [HandoffWork] = []
        /// The ledger: tokens marked used.
        var used: Set<Int> = []
        /// Tokens handed to the importer, ever.
        var imported: [Int] = []
        /// The token each attempt marks and imports.
        var attemptTokens: [UInt64: Int] = [:]
        var nextCaller: UInt64 = 1
    }

    enum Input {
        case request(token: Int)
        case ledger(work: Int, failed: Bool)
        case finished(work: Int, ok: Bool)
        case timerFired(work: Int)
        case cancel(UInt64)
        case shutDown
    }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        var inputs: [Input] = state.waiting.count < 3 ? [.request(token: 0), .request(token: 1)] : []
        for (index, work) in state.work.enumerated() {
            switch work.kind {
            case Self.mark: inputs += [.ledger(work: index, failed: false), .ledger(work: index, failed: true)]
            case Self.importing: inputs += [.finished(work: index, ok: true), .finished(work: index, ok: false)]
            default: inputs.append(.timerFired(work: index))
            }
        }
        inputs += state.waiting.keys.sorted().map { .cancel($0) }
        inputs.append(.shutDown)
        return inputs
    }

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        let current = state.machine.running?.attempt
        var late = false
        let actions: [Machine.Action]
        switch input {
        case .request(let token):
            let id = state.nextCaller
            state.nextCaller += 1
            state.waiting[id] = token
            actions = state.machine.requested(Self.tokens[token], caller: id, waiter: id)
        case .ledger(let index, let failed):
            let work = state.work.remove(at: index)
            late = work.attempt != current
            let marked = markedToken(attempt: work.attempt, state: state)
            if failed {
                actions = state.machine.ledgerAnswered(.failure(.ioFailure("io")), attempt: work.attempt)
            } else {
                let fresh = state.used.insert(marked).inserted
                actions = state.machine.ledgerAnswered(.success(fresh), attempt: work.attempt)
            }
        case .finished(let index, let ok):
            let work = state.work.remove(at: index)
            late = work.attempt != current
            let document = CXFDocument(
                version: .v1, exporterRelyingPartyID: "exporter.example", exporterDisplayName: "Exporter", timestamp: nil, accounts: [])
            actions = state.machine.importFinished(
                ok ? .success(document) : .failure(.importerFailed(.failed("refused"))), attempt: work.attempt)
        case .timerFired(let index):
            let work = state.work.remove(at: index)
            late = work.attempt != current
            actions = state.machine.timerFired(attempt: work.attempt)
        case .cancel(let id):
            actions = state.machine.callerCancelled(id)
        case .shutDown:
            actions = state.machine.shutDown()
        }
        var violations: [Violation] = []
        for action in actions {
            switch action {
            case .markUsed(let token, let attempt):
                state.work.append(HandoffWork(kind: Self.mark, attempt: attempt, token: nil))
                state.attemptTokens[attempt] = Self.tokens.firstIndex(of: token) ?? 0
            case .startImport(let token, let attempt, let cancel):
                let index = Self.tokens.firstIndex(of: token) ?? 0
                if state.imported.contains(index) {
                    violations.append(.init("importsOnce", "token \(index) was handed to the importer a second time"))
                }
                if !state.used.contains(index) {
                    violations.append(.init("importsOnce", "token \(index) was handed to the importer before the ledger marked it used"))
                }
                state.imported.append(index)
                state.work.append(HandoffWork(kind: Self.importing, attempt: attempt, token: ObjectIdentifier(cancel)))
            case .startTimer(let attempt, _, let cancel):
                state.work.append(HandoffWork(kind: Self.timer, attempt: attempt, token: ObjectIdentifier(cancel)))
            case .cancelImport(_, let token), .cancelTimer(_, let token):
                for index in state.work.indices where state.work[index].token == ObjectIdentifier(token) {
                    state.work[index].cancelled = true
                }
            case .resume(let waiters, _):
                for waiter in waiters where state.waiting.removeValue(forKey: waiter) == nil {
                    violations.append(.init("waitersAnsweredOnce", "caller \(waiter) was answered a second time"))
                }
            case .emit:
                break
            }
        }
        if case .shutDown = input { state.work.removeAll { $0.kind != Self.mark } }
        if late && !actions.isEmpty {
            violations.append(.init("lateResultsDropped", "a result of an attempt that already ended did something"))
        }
        let held = Set(
            (state.machine.running.map { [$0.job] } ?? []).flatMap { $0.callers.map(\.waiter) }
                + state.machine.queue.flatMap { $0.callers.map(\.waiter) })
        if held != Set(state.waiting.keys) {
            violations.append(
                .init("waitersAnsweredOnce", "callers waiting \(state.waiting.keys.sorted()), the machine holds \(held.sorted())"))
        }
        let live = Set(state.work.filter { !$0.cancelled }.compactMap(\.token))
        var owned: Set<ObjectIdentifier> = []
        if let running = state.machine.running, case .importing(let work, let timer) = running.phase {
            owned.insert(ObjectIdentifier(work))
            if let timer { owned.insert(ObjectIdentifier(timer)) }
        }
        if !live.isSubset(of: owned) {
            violations.append(
                .init("timersFiredOrCancelled", "an import or a timer runs that the machine no longer holds and never cancelled"))
        }
        return violations
    }

    private func markedToken(attempt: UInt64, state: State) -> Int { state.attemptTokens[attempt] ?? 0 }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        let current = state.machine.running?.attempt
        if let running = state.machine.running {
            form.tag(1)
            form.write(Self.tokens.firstIndex(of: running.job.token) ?? 0)
            form.write(running.job.callers.count)
            if case .marking = running.phase { form.write(0) } else { form.write(1) }
        }
        form.tag(2)
        for job in state.machine.queue {
            form.write(Self.tokens.firstIndex(of: job.token) ?? 0)
            form.write(job.callers.count)
        }
        form.tag(3)
        form.write(state.machine.isStopped)
        for token in state.used.sorted() { form.write(token) }
        form.tag(4)
        for token in state.imported { form.write(token) }
        form.tag(5)
        let work = state.work.map { [$0.kind, $0.attempt == current ? 1 : 0, $0.cancelled ? 1 : 0, state.attemptTokens[$0.attempt] ?? 0] }
        for item in work.sorted(by: { $0.lexicographicallyPrecedes($1) }) { for value in item { form.write(value) } }
        form.tag(6)
        for (_, token) in state.waiting.sorted(by: { $0.key < $1.key }) { form.write(token) }
    }

    func script(_ path: [Input]) -> String {
        var state = initialState()
        var lines = ["var machine = CredentialImportMachine<UInt64>(timeout: .seconds(30))"]
        for input in path {
            switch input {
            case .request(let token):
                lines.append(
                    "_ = machine.requested(token\(token == 0 ? "A" : "B"), caller: \(state.nextCaller), waiter: \(state.nextCaller))")
            case .ledger(let index, let failed):
                let attempt = state.work[index].attempt
                let fresh = !state.used.contains(markedToken(attempt: attempt, state: state))
                lines.append(
                    "_ = machine.ledgerAnswered(\(failed ? ".failure(.ioFailure(\"io\"))" : ".success(\(fresh))"), attempt: \(attempt))")
            case .finished(let index, let ok):
                lines.append(
                    "_ = machine.importFinished(\(ok ? ".success(document)" : ".failure(.importerFailed(.failed(\"refused\")))"), attempt: \(state.work[index].attempt))"
                )
            case .timerFired(let index): lines.append("_ = machine.timerFired(attempt: \(state.work[index].attempt))")
            case .cancel(let id): lines.append("_ = machine.callerCancelled(\(id))")
            case .shutDown: lines.append("_ = machine.shutDown()")
            }
            _ = step(&state, input)
        }
        return lines.joined(separator: "; ")
    }
}
