import SessionKitCore

/// The pure core of a ``CredentialImportCoordinator``: `(state, event) -> (state, [action])`.
///
/// ```
///                request                      marked (new)                  data / failure / timeout
///   idle ──────────────────▶ marking ──────────────────────▶ importing ─────────────────────────▶ next or idle
///     ▲  (another token:          │ already used / store failed
///     │   queued behind)          ▼
///     └──────────────────── next or idle
///
///   any ── shut down ──▶ stopped (every caller, running or queued, answered; every later request refused)
/// ```
///
/// One import runs at a time. A request for the token in progress (or one already queued) joins
/// it; a request for another token queues behind it. The token is marked used in the ledger
/// before the importer sees it, so it can never import twice. The importing phase keeps the
/// cancel tokens of the import and its timer and hands them back in the actions that end them.
/// No I/O, no `await`, no clock reads; a ledger answer, result or timer for an attempt that
/// already ended is a harmless race and does nothing.
struct CredentialImportMachine<Waiter: Sendable> {
    struct Caller {
        var id: UInt64
        var waiter: Waiter
    }

    struct Job {
        var token: CredentialImportToken
        var callers: [Caller]
    }

    enum Phase {
        /// The ledger write runs; once begun it lands or fails on its own, so nothing cancels it.
        case marking
        /// The importer runs under `work`; `timer` ends the timeout's wait, when there is one.
        case importing(work: CancelToken, timer: CancelToken?)
    }

    struct Running {
        var job: Job
        var attempt: UInt64
        var phase: Phase
    }

    enum Action: Sendable {
        case markUsed(CredentialImportToken, attempt: UInt64)
        case startImport(CredentialImportToken, attempt: UInt64, cancel: CancelToken)
        case cancelImport(attempt: UInt64, CancelToken)
        case startTimer(attempt: UInt64, after: Duration, cancel: CancelToken)
        case cancelTimer(attempt: UInt64, CancelToken)
        case resume([Waiter], Result<CXFDocument, CredentialImportError>)
        case emit(CredentialImportEvent)
    }

    let timeout: Duration?
    private(set) var running: Running?
    private(set) var queue: [Job] = []
    /// Shut down: every later request is refused.
    private(set) var isStopped = false
    private var lastAttempt: UInt64 = 0

    init(timeout: Duration?) {
        self.timeout = timeout
    }

    /// How many tokens wait behind the import in progress.
    var queuedCount: Int { queue.count }

    mutating func requested(_ token: CredentialImportToken, caller id: UInt64, waiter: Waiter) -> [Action] {
        guard !isStopped else { return [.resume([waiter], .failure(.shutDown))] }
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

    /// An activity yielded no token: told like any other failure, in order with the rest.
    func intakeRefused(_ error: CredentialImportIntakeError) -> [Action] {
        [.emit(.failed(.intake(error)))]
    }

    mutating func ledgerAnswered(_ answer: Result<Bool, CredentialStoreError>, attempt: UInt64) -> [Action] {
        guard var current = running, current.attempt == attempt, case .marking = current.phase else { return [] }
        switch answer {
        case .success(true):
            guard !current.job.callers.isEmpty else {
                running = nil
                return [.emit(.abandoned)] + startNext()
            }
            let work = CancelToken()
            let timer = timeout.map { _ in CancelToken() }
            current.phase = .importing(work: work, timer: timer)
            running = current
            var actions: [Action] = [.startImport(current.job.token, attempt: attempt, cancel: work)]
            if let timeout, let timer { actions.append(.startTimer(attempt: attempt, after: timeout, cancel: timer)) }
            return actions
        case .success(false):
            return finish(.failure(.alreadyUsed), event: .alreadyUsed)
        case .failure(let error):
            return finish(.failure(.storage(error)), event: .failed(.storage(error)))
        }
    }

    mutating func importFinished(_ result: Result<CXFDocument, CredentialImportError>, attempt: UInt64) -> [Action] {
        guard let current = running, current.attempt == attempt, case .importing(_, let timer) = current.phase else { return [] }
        let event: CredentialImportEvent =
            switch result {
            case .success(let document): .imported(document.summary)
            case .failure(let error): .failed(error)
            }
        return finish(result, event: event, after: timer.map { [.cancelTimer(attempt: attempt, $0)] } ?? [])
    }

    mutating func timerFired(attempt: UInt64) -> [Action] {
        guard let current = running, current.attempt == attempt, case .importing(let work, _) = current.phase else { return [] }
        return finish(.failure(.timedOut), event: .failed(.timedOut), after: [.cancelImport(attempt: attempt, work)])
    }

    mutating func callerCancelled(_ id: UInt64) -> [Action] {
        if var current = running, let index = current.job.callers.firstIndex(where: { $0.id == id }) {
            let caller = current.job.callers.remove(at: index)
            running = current
            var actions: [Action] = [.resume([caller.waiter], .failure(.cancelled))]
            // While marking, the ledger write runs to its end; its answer sees no callers and
            // abandons the import.
            if current.job.callers.isEmpty, case .importing(let work, let timer) = current.phase {
                running = nil
                actions += [.cancelImport(attempt: current.attempt, work)]
                if let timer { actions += [.cancelTimer(attempt: current.attempt, timer)] }
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

    /// The coordinator shuts down: the import in progress is cancelled, every caller (of it and of
    /// the queued tokens) gets ``CredentialImportError/shutDown``, and so does every later request.
    /// A token whose ledger write began may be spent.
    mutating func shutDown() -> [Action] {
        guard !isStopped else { return [] }
        isStopped = true
        var actions: [Action] = []
        var jobs = queue
        queue = []
        if let current = running {
            running = nil
            jobs.insert(current.job, at: 0)
            if case .importing(let work, let timer) = current.phase {
                actions += [.cancelImport(attempt: current.attempt, work)]
                if let timer { actions += [.cancelTimer(attempt: current.attempt, timer)] }
            }
        }
        guard !jobs.isEmpty else { return actions }
        let waiters = jobs.flatMap { $0.callers.map(\.waiter) }
        return actions + [.emit(.failed(.shutDown))] + (waiters.isEmpty ? [] : [.resume(waiters, .failure(.shutDown))])
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

    /// Ends the import in progress with `result` for all its callers, after `ending` (what stops
    /// its other work), and starts the next.
    private mutating func finish(
        _ result: Result<CXFDocument, CredentialImportError>, event: CredentialImportEvent, after ending: [Action] = []
    ) -> [Action] {
        guard let current = running else { return [] }
        running = nil
        return ending + [.emit(event), .resume(current.job.callers.map(\.waiter), result)] + startNext()
    }
}

extension CredentialImportMachine: ShellMachine {
    static func event(in action: Action) -> CredentialImportEvent? {
        if case .emit(let event) = action { return event }
        return nil
    }
}
