import SessionKitCore

/// Whose turn it is at the vault's gate: the pure machine ``HighAssuranceVault``'s shell runs.
///
/// One operation (keep, read, remove) at a time, in arrival order: a removal at sign-out never
/// lands between a read's look at the metadata and its prompt, and two keeps never cross. The
/// operation whose turn it is runs in its caller's task, raced against the turn's `CancelToken`;
/// a shutdown cancels that token and answers every caller still waiting for a turn.
struct HighAssuranceTurns: ShellMachine {
    typealias Turn = CheckedContinuation<Answer, Never>
    typealias Event = Never

    /// What a caller asking for a turn is answered.
    enum Answer: Sendable {
        /// Its turn: the operation runs now, ended early by the token's cancellation.
        case go(CancelToken)
        /// The caller was cancelled while it waited.
        case cancelled
        /// The vault was shut down.
        case shutDown
    }

    enum Action: Sendable {
        case answer(Turn, Answer)
        case cancel(CancelToken)
    }

    private var current: CancelToken?
    private var waiting: [(id: UInt64, turn: Turn)] = []
    private var isShutDown = false

    static func event(in action: Action) -> Never? { nil }

    /// How many callers wait for a turn.
    var waitingCount: Int { waiting.count }

    /// A caller asks for a turn.
    mutating func requested(_ id: UInt64, _ turn: Turn) -> [Action] {
        if isShutDown { return [.answer(turn, .shutDown)] }
        guard current == nil else {
            waiting.append((id, turn))
            return []
        }
        let token = CancelToken()
        current = token
        return [.answer(turn, .go(token))]
    }

    /// The operation whose turn `token` gave has returned: the next caller's turn.
    mutating func finished(_ token: CancelToken) -> [Action] {
        guard current === token else { return [] }
        current = nil
        guard !isShutDown, !waiting.isEmpty else { return [] }
        let next = waiting.removeFirst()
        let token = CancelToken()
        current = token
        return [.answer(next.turn, .go(token))]
    }

    /// A caller waiting for its turn was cancelled. One whose turn came already is cancelled
    /// with its own task, which its operation runs in.
    mutating func callerCancelled(_ id: UInt64) -> [Action] {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return [] }
        return [.answer(waiting.remove(at: index).turn, .cancelled)]
    }

    mutating func shutDown() -> [Action] {
        isShutDown = true
        defer { waiting = [] }
        return waiting.map { .answer($0.turn, .shutDown) } + (current.map { [.cancel($0)] } ?? [])
    }
}

/// Performs ``HighAssuranceTurns``' actions: it answers callers and cancels the running turn.
struct HighAssuranceTurnRunner: ShellRunner {
    typealias Machine = HighAssuranceTurns

    func perform(_ action: Machine.Action, in shell: MachineShell<Self>) {
        switch action {
        case .answer(let turn, let answer): turn.resume(returning: answer)
        case .cancel(let token): token.cancel()
        }
    }
}
