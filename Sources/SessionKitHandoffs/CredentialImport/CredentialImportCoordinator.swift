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
/// A thin shell around a pure machine (`CredentialImportMachine`): one lock guards the machine;
/// each call feeds it one input under that lock, and the actions it returns are performed in
/// order after the lock is released. The ledger write, the import and the optional timeout run as
/// children of the coordinator's one task owner and report back as inputs; ``shutdown()`` ends
/// them. The timeout waits on the injected clock.
///
/// ```swift
/// let coordinator = CredentialImportCoordinator(
///     importer: SystemCredentialImporter(), ledger: store.makeImportTokenLedger(),
///     intake: .system, clock: ContinuousClock(), timeout: .seconds(120))
/// // onContinueUserActivity(ASCredentialExchangeActivity) { activity in
/// let document = try await coordinator.handle(CredentialImportActivity(activity))
/// for item in document.accounts.flatMap(\.items) { save(item) }
/// ```
public final class CredentialImportCoordinator<C: Clock>: Sendable, ShellHost where C.Duration == Duration {
    /// The format versions this app reads; data in any other version is refused.
    public let supportedVersions: [CXFVersion]
    /// How activities are read.
    public let intake: CredentialImportIntake

    private let shell: MachineShell<CredentialImportRunner<C>>

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
        self.intake = intake
        self.supportedVersions = supportedVersions
        self.shell = MachineShell(
            CredentialImportMachine(timeout: timeout),
            runner: CredentialImportRunner(importer: importer, ledger: ledger, supportedVersions: supportedVersions, clock: clock))
    }

    /// Whether an import is in progress.
    public var isImporting: Bool { shell.read { $0.running != nil } }

    /// A stream of every later event, in order; it ends when the coordinator shuts down.
    public func events() -> AsyncStream<CredentialImportEvent> {
        shell.events()
    }

    /// Calls `observer` synchronously, in order, for every later event, on the thread that
    /// performs the coordinator's actions (never two at once). It must return quickly and must
    /// not call back into the coordinator.
    public func addObserver(_ observer: @escaping @Sendable (CredentialImportEvent) -> Void) {
        shell.addObserver(observer)
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
            shell.modify { $0.intakeRefused(error) }
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
    /// payload), ``CredentialImportError/cancelled`` when the calling task is cancelled (the
    /// import is abandoned once no caller waits for it; its token stays spent), and
    /// ``CredentialImportError/shutDown`` once the coordinator is shut down.
    public func importCredentials(with token: CredentialImportToken) async throws(CredentialImportError) -> CXFDocument {
        try await shell.suspend(cancelled: .failure(.cancelled)) { machine, caller, waiter in
            machine.requested(token, caller: caller, waiter: waiter)
        }.get()
    }

    /// Ends the coordinator: the import in progress is cancelled, every caller waiting (for it or
    /// for a queued token) throws ``CredentialImportError/shutDown``, the event streams end, and
    /// every later import is refused the same way. Returns once every task the coordinator
    /// started has ended.
    public func shutdown() async {
        await shell.shutdown()
    }

    /// The task owner and change feed the test kit reads (``ShellHost``).
    package var shellWork: ShellWork { shell.work }
}

extension CredentialImportCoordinator: CustomReflectable {
    /// What `dump` and debuggers show: whether an import runs, never a token or a credential.
    public var customMirror: Mirror {
        Mirror(self, children: ["isImporting": isImporting], displayStyle: .class)
    }
}
