import SessionKitCore

/// Performs a ``CredentialImportCoordinator``'s actions: the ledger write, the import and the
/// timeout run as children of the coordinator's task owner; the import and the timeout each under
/// the cancel token the machine keeps for it.
struct CredentialImportRunner<C: Clock>: ShellRunner where C.Duration == Duration {
    typealias Waiter = CheckedContinuation<Result<CXFDocument, CredentialImportError>, Never>
    typealias Machine = CredentialImportMachine<Waiter>

    let importer: any CredentialImporter
    let ledger: any ImportTokenLedger
    let supportedVersions: [CXFVersion]
    let clock: C

    func perform(_ action: Machine.Action, in shell: MachineShell<Self>) {
        switch action {
        case .markUsed(let token, let attempt):
            let ledger = self.ledger
            // Not cancelled with the caller: once begun, the mark must land or fail on its own.
            shell.owner.spawn { [weak shell] in
                let answer: Result<Bool, CredentialStoreError>
                do throws(CredentialStoreError) {
                    answer = .success(try await ledger.markUsed(token))
                } catch {
                    answer = .failure(error)
                }
                shell?.modify { $0.ledgerAnswered(answer, attempt: attempt) }
            }
        case .startImport(let token, let attempt, let cancel):
            let importer = self.importer
            let versions = supportedVersions
            shell.owner.spawn(cancelledBy: cancel) { [weak shell] in
                let result = await Self.fetch(token, from: importer, versions: versions)
                shell?.modify { $0.importFinished(result, attempt: attempt) }
            }
        case .cancelImport(_, let cancel), .cancelTimer(_, let cancel):
            // An import or timer that reports before this reaches it is dropped as stale.
            cancel.cancel()
        case .startTimer(let attempt, let duration, let cancel):
            shell.startTimer(after: duration, on: clock, cancelledBy: cancel) { [weak shell] in
                shell?.modify { $0.timerFired(attempt: attempt) }
            }
        case .resume(let waiters, let result):
            for waiter in waiters { waiter.resume(returning: result) }
        case .emit:
            // Published by the shell, in order with the subscriptions.
            break
        }
    }

    /// Fetches and decodes, in the import's own task: decoding a large export takes a while.
    private static func fetch(
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
