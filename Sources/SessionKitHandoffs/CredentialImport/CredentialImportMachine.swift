import SessionKitCore

/// The pure core of a ``CredentialImportCoordinator``: `(state, event) -> (state, [action])`.
///
/// ```
///                request                      marked (new)                  data / failure / timeout
///   idle ──────────────────▶ marking ──────────────────────▶ importing ─────────────────────────▶ next or idle
///     ▲  (another token:          │ already used / store failed
///     │   queued behind)          ▼
///     └──────────────────── next or idle
/// ```
///
/// One import runs at a time. A request for the token in progress (or one already queued) joins
/// it; a request for another token queues behind it. The token is marked used in the ledger
/// before the importer sees it, so it can never import twice. No I/O, no `await`, no clock
/// reads; a ledger answer, result or timer for an attempt that already ended is a harmless race
/// and does nothing.
struct CredentialImportMachine<Waiter> {
    struct Caller {
        var id: UInt64
        var waiter: Waiter
    }

    struct Job {
        var token: CredentialImportToken
        var callers: [Caller]
    }

    enum Phase: Equatable {
        case marking
        case importing
    }

    struct Running {
        var job: Job
        var attempt: UInt64
        var phase: Phase
    }

    enum Action {
        case markUsed(CredentialImportToken, attempt: UInt64)
        case startImport(CredentialImportToken, attempt: UInt64)
        case cancelImport(attempt: UInt64)
        case startTimer(attempt: UInt64, after: Duration)
        case cancelTimer(attempt: UInt64)
        case resume([Waiter], Result<CXFDocument, CredentialImportError>)
        case emit(CredentialImportEvent)
    }

    let timeout: Duration?
    private(set) var running: Running?
    private(set) var queue: [Job] = []
    private var lastAttempt: UInt64 = 0

    init(timeout: Duration?) {
        self.timeout = timeout
    }

    /// How many tokens wait behind the import in progress.
    var queuedCount: Int { queue.count }

    mutating func requested(_ token: CredentialImportToken, caller id: UInt64, waiter: Waiter) -> [Action] {
        let caller = Caller(id: id, waiter: waiter)
        if running?.job.token == token {
            running?.job.callers.append(caller)
            return [.emit(.joined)]
        }
        if let index = queue.firstIndex(where: { $0.token == token }) {
            queue[index].callers.append(caller)
            return [.emit(.joined)]
        }
        let job = Job(token: token, callers: [caller])
        guard running == nil else {
            queue.append(job)
            return [.emit(.queued)]
        }
        return start(job)
    }

    mutating func ledgerAnswered(_ answer: Result<Bool, CredentialStoreError>, attempt: UInt64) -> [Action] {
        guard var current = running, current.attempt == attempt, current.phase == .marking else { return [] }
        switch answer {
        case .success(true):
            guard !current.job.callers.isEmpty else {
                running = nil
                return [.emit(.abandoned)] + startNext()
            }
            current.phase = .importing
            running = current
            var actions: [Action] = [.startImport(current.job.token, attempt: attempt)]
            if let timeout { actions.append(.startTimer(attempt: attempt, after: timeout)) }
            return actions
        case .success(false):
            return finish(.failure(.alreadyUsed), event: .alreadyUsed, timer: false)
        case .failure(let error):
            return finish(.failure(.storage(error)), event: .failed(.storage(error)), timer: false)
        }
    }

    mutating func importFinished(_ result: Result<CXFDocument, CredentialImportError>, attempt: UInt64) -> [Action] {
        guard let current = running, current.attempt == attempt, current.phase == .importing else { return [] }
        let event: CredentialImportEvent =
            switch result {
            case .success(let document): .imported(document.summary)
            case .failure(let error): .failed(error)
            }
        return finish(result, event: event, timer: timeout != nil)
    }

    mutating func timerFired(attempt: UInt64) -> [Action] {
        guard let current = running, current.attempt == attempt, current.phase == .importing else { return [] }
        return [.cancelImport(attempt: attempt)] + finish(.failure(.timedOut), event: .failed(.timedOut), timer: false)
    }

    mutating func callerCancelled(_ id: UInt64) -> [Action] {
        if var current = running, let index = current.job.callers.firstIndex(where: { $0.id == id }) {
            let caller = current.job.callers.remove(at: index)
            running = current
            var actions: [Action] = [.resume([caller.waiter], .failure(.cancelled))]
            // While marking, the ledger write runs to its end; its answer sees no callers and
            // abandons the import.
            if current.job.callers.isEmpty, current.phase == .importing {
                running = nil
                actions += [.cancelImport(attempt: current.attempt)]
                if timeout != nil { actions += [.cancelTimer(attempt: current.attempt)] }
                actions += [.emit(.abandoned)] + startNext()
            }
            return actions
        }
        for jobIndex in queue.indices {
            guard let index = queue[jobIndex].callers.firstIndex(where: { $0.id == id }) else { continue }
            let caller = queue[jobIndex].callers.remove(at: index)
            if queue[jobIndex].callers.isEmpty { queue.remove(at: jobIndex) }
            return [.resume([caller.waiter], .failure(.cancelled))]
        }
        // Already resumed: the import ended before the cancellation arrived.
        return []
    }

    private mutating func start(_ job: Job) -> [Action] {
        lastAttempt += 1
        running = Running(job: job, attempt: lastAttempt, phase: .marking)
        return [.emit(.started), .markUsed(job.token, attempt: lastAttempt)]
    }

    private mutating func startNext() -> [Action] {
        guard !queue.isEmpty else { return [] }
        return start(queue.removeFirst())
    }

    private mutating func finish(_ result: Result<CXFDocument, CredentialImportError>, event: CredentialImportEvent, timer: Bool)
        -> [Action]
    {
        guard let current = running else { return [] }
        running = nil
        var actions: [Action] = timer ? [.cancelTimer(attempt: current.attempt)] : []
        actions += [.emit(event), .resume(current.job.callers.map(\.waiter), result)]
        return actions + startNext()
    }
}
