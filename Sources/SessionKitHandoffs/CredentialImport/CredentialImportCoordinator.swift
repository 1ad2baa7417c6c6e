public import SessionKitCore

/// Imports credentials another app exported, once per import token.
///
/// The system launches (or continues) the app with a credential-exchange activity; hand it to
/// ``handle(_:)``. The coordinator takes the token out (``CredentialImportIntake``), records it in
/// the ledger before anything else, fetches the data through the importer, and decodes it for
/// the versions the app declares. A second delivery of the same token while it imports joins
/// that import; afterwards (in this launch or a later one) the token is refused as already used.
/// Imports of different tokens run one after the other.
///
/// A thin shell around a pure machine: each call runs one transition and performs the actions it
/// returns; the ledger write and the import run in tasks that report back. The optional timeout
/// waits on the injected clock.
///
/// ```swift
/// let coordinator = CredentialImportCoordinator(
///     importer: SystemCredentialImporter(), ledger: store.makeImportTokenLedger(),
///     intake: .system, clock: ContinuousClock(), timeout: .seconds(120))
/// // onContinueUserActivity(ASCredentialExchangeActivity) { activity in
/// let document = try await coordinator.handle(CredentialImportActivity(activity))
/// for item in document.accounts.flatMap(\.items) { save(item) }
/// ```
public actor CredentialImportCoordinator<C: Clock> where C.Duration == Duration {
    private typealias Machine = CredentialImportMachine<CheckedContinuation<Result<CXFDocument, CredentialImportError>, Never>>

    /// The format versions this app reads; data in any other version is refused.
    public nonisolated let supportedVersions: [CXFVersion]
    /// How activities are read.
    public nonisolated let intake: CredentialImportIntake

    private let importer: any CredentialImporter
    private let ledger: any ImportTokenLedger
    private let clock: C
    private var machine: Machine
    private var imports: [UInt64: Task<Void, Never>] = [:]
    private var timers: [UInt64: Task<Void, Never>] = [:]
    private var broadcaster = EventBroadcaster<CredentialImportEvent>()
    private var lastCaller: UInt64 = 0

    /// Creates a coordinator.
    ///
    /// - Parameters:
    ///   - importer: Fetches the exported data for a token (the system, or a simulation).
    ///   - ledger: Where used tokens are recorded durably.
    ///   - intake: Which activity type and `userInfo` key carry the token.
    ///   - supportedVersions: The format versions the app reads, as its Info.plist declares them.
    ///   - clock: The timeout waits on it.
    ///   - timeout: How long an import may take; `nil` waits as long as it takes.
    public init(
        importer: any CredentialImporter, ledger: any ImportTokenLedger, intake: CredentialImportIntake,
        supportedVersions: [CXFVersion] = [.v1], clock: C, timeout: Duration? = nil
    ) {
        self.importer = importer
        self.ledger = ledger
        self.intake = intake
        self.supportedVersions = supportedVersions
        self.clock = clock
        self.machine = Machine(timeout: timeout)
    }

    /// Whether an import is in progress.
    public var isImporting: Bool { machine.running != nil }

    /// A stream of every later event, in order.
    public func events() -> AsyncStream<CredentialImportEvent> {
        broadcaster.subscribe { [weak self] id in
            Task { await self?.removeSubscriber(id) }
        }
    }

    /// Calls `observer` synchronously, on the coordinator's executor, for every later event.
    public func addObserver(_ observer: @escaping @Sendable (CredentialImportEvent) -> Void) {
        broadcaster.addObserver(observer)
    }

    /// Imports with the token `activity` carries.
    ///
    /// Throws ``CredentialImportError/intake(_:)`` for an activity that is not a well-formed
    /// credential-exchange activity, and otherwise what ``importCredentials(with:)`` throws.
    public func handle(_ activity: CredentialImportActivity) async throws(CredentialImportError) -> CXFDocument {
        let token: CredentialImportToken
        do {
            token = try intake.token(from: activity)
        } catch {
            broadcaster.publish(.failed(.intake(error)))
            throw .intake(error)
        }
        return try await importCredentials(with: token)
    }

    /// Imports with `token`, at most once per token.
    ///
    /// The document loses nothing: entries that break the format's rules come back kept whole
    /// (``CXFDocument/allUndecodable``) beside everything else. Throws
    /// ``CredentialImportError/alreadyUsed`` for a token imported before,
    /// ``CredentialImportError/unsupportedVersion(found:supported:payload:)`` for data in an
    /// undeclared major version and ``CredentialImportError/invalidData(_:payload:)`` for data that
    /// is not the format at all (both hand over the data that arrived, once, as an opaque
    /// payload), and ``CredentialImportError/cancelled`` when the calling task is cancelled (the
    /// import is abandoned once no caller waits for it; its token stays spent).
    public func importCredentials(with token: CredentialImportToken) async throws(CredentialImportError) -> CXFDocument {
        lastCaller += 1
        let caller = lastCaller
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<CXFDocument, CredentialImportError>, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: .failure(.cancelled))
                    return
                }
                perform(machine.requested(token, caller: caller, waiter: continuation))
            }
        } onCancel: {
            Task { await self.callerCancelled(caller) }
        }
        return try result.get()
    }

    // MARK: - Running the machine

    private func callerCancelled(_ caller: UInt64) {
        perform(machine.callerCancelled(caller))
    }

    private func ledgerAnswered(_ answer: Result<Bool, CredentialStoreError>, attempt: UInt64) {
        imports[attempt] = nil
        perform(machine.ledgerAnswered(answer, attempt: attempt))
    }

    private func importFinished(_ result: Result<CXFDocument, CredentialImportError>, attempt: UInt64) {
        imports[attempt] = nil
        perform(machine.importFinished(result, attempt: attempt))
    }

    private func timerFired(attempt: UInt64) {
        timers[attempt] = nil
        perform(machine.timerFired(attempt: attempt))
    }

    private func removeSubscriber(_ id: UInt64) {
        broadcaster.remove(id)
    }

    private func perform(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .markUsed(let token, let attempt):
                let ledger = ledger
                // Not cancelled with the caller: once begun, the mark must land or fail on its own.
                imports[attempt] = Task {
                    let answer: Result<Bool, CredentialStoreError>
                    do throws(CredentialStoreError) {
                        answer = .success(try await ledger.markUsed(token))
                    } catch {
                        answer = .failure(error)
                    }
                    ledgerAnswered(answer, attempt: attempt)
                }
            case .startImport(let token, let attempt):
                let importer = importer
                let versions = supportedVersions
                imports[attempt] = Task {
                    let result = await Self.fetch(token, from: importer, versions: versions)
                    importFinished(result, attempt: attempt)
                }
            case .cancelImport(let attempt):
                imports.removeValue(forKey: attempt)?.cancel()
            case .startTimer(let attempt, let duration):
                let clock = clock
                timers[attempt] = Task {
                    guard (try? await clock.sleep(for: duration)) != nil else { return }
                    timerFired(attempt: attempt)
                }
            case .cancelTimer(let attempt):
                timers.removeValue(forKey: attempt)?.cancel()
            case .resume(let waiters, let result):
                for waiter in waiters { waiter.resume(returning: result) }
            case .emit(let event):
                broadcaster.publish(event)
            }
        }
    }

    /// Fetches and decodes, off the actor: decoding a large export takes a while.
    private nonisolated static func fetch(
        _ token: CredentialImportToken, from importer: any CredentialImporter, versions: [CXFVersion]
    ) async -> Result<CXFDocument, CredentialImportError> {
        let payload: CredentialExchangePayload
        do {
            payload = try await importer.importCredentials(token: token)
        } catch {
            return .failure(error == .cancelled ? .cancelled : .importerFailed(error))
        }
        do {
            return .success(try CXFDocument.decode(payload.bytes, supportedVersions: versions))
        } catch {
            if case .unsupportedVersion(let found, let supported) = error {
                return .failure(.unsupportedVersion(found: found, supported: supported, payload: payload))
            }
            return .failure(.invalidData(error, payload: payload))
        }
    }
}
