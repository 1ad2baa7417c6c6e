import SessionKit
public import SessionKitCore
import SessionKitHandoffs

/// An `ImportTokenLedger` held in memory, with hooks for tests.
///
/// Share one instance between two coordinators to play a relaunch (the ledger is what survives);
/// make the next operations fail to test a ledger that cannot be written.
public final class InMemoryImportTokenLedger: ImportTokenLedger {
    private struct State {
        var record = ImportTokenLedgerRecord()
        var failures: [CredentialStoreError] = []
        var markCount = 0
    }

    /// How many tokens the ledger remembers; the oldest are forgotten first.
    public let capacity: Int
    private let state = Locked(State())

    /// Creates an empty ledger.
    public init(capacity: Int = FileImportTokenLedger.defaultCapacity) {
        self.capacity = max(capacity, 1)
    }

    /// How many tokens are recorded.
    public var count: Int {
        state.withLock { $0.record.digests.count }
    }

    /// How many times ``markUsed(_:)`` was called, failed calls included.
    public var markCount: Int {
        state.withLock { $0.markCount }
    }

    /// Makes the next `times` operations fail with `error`.
    public func failNext(times: Int = 1, with error: CredentialStoreError) {
        state.withLock { $0.failures += Array(repeating: error, count: max(times, 0)) }
    }

    /// Records `token`; `false` when it was recorded already.
    public func markUsed(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        let capacity = capacity
        let result = state.withLock { state -> Result<Bool, CredentialStoreError> in
            state.markCount += 1
            if !state.failures.isEmpty { return .failure(state.failures.removeFirst()) }
            return .success(state.record.insert(token.ledgerDigest, capacity: capacity))
        }
        return try result.get()
    }

    /// Whether `token` is recorded.
    public func contains(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        let result = state.withLock { state -> Result<Bool, CredentialStoreError> in
            if !state.failures.isEmpty { return .failure(state.failures.removeFirst()) }
            return .success(state.record.contains(token.ledgerDigest))
        }
        return try result.get()
    }
}

extension InMemoryCredentialStore: ImportTokenLedgerProviding {
    /// A new ``InMemoryImportTokenLedger``; keep the one returned to play a relaunch.
    public func makeImportTokenLedger() -> any ImportTokenLedger {
        InMemoryImportTokenLedger()
    }
}
