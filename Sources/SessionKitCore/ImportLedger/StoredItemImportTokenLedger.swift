/// An ``ImportTokenLedger`` kept as one item of a keyring-like store: the ledger's framed record
/// (the file ledger's format: schema version, kind, SHA-256) read and replaced whole.
///
/// The Keychain and Secret Service stores vend one through
/// ``ImportTokenLedgerProviding/makeImportTokenLedger()``. Each mark reads the item, adds the
/// token's digest and replaces the item, one mark at a time per ledger; a damaged item is a typed
/// error, which the coordinator treats as "do not import".
public final class StoredItemImportTokenLedger: ImportTokenLedger {
    /// Reads the item's bytes; `nil` when there is no item yet.
    public typealias Read = @Sendable () async throws(CredentialStoreError) -> [UInt8]?
    /// Replaces the item's bytes atomically.
    public typealias Write = @Sendable ([UInt8]) async throws(CredentialStoreError) -> Void

    /// How many tokens the ledger remembers; the oldest are forgotten first.
    public let capacity: Int

    private let read: Read
    private let write: Write
    private let mutex = AsyncMutex()

    /// A ledger over an item that `read` and `write` reach.
    public init(capacity: Int = FileImportTokenLedger.defaultCapacity, read: @escaping Read, write: @escaping Write) {
        self.capacity = max(capacity, 1)
        self.read = read
        self.write = write
    }

    /// Records `token` durably; `false` when it was recorded already.
    public func markUsed(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        try await exclusively { () throws(CredentialStoreError) in
            var record = try await self.load()
            guard record.insert(token.ledgerDigest, capacity: self.capacity) else { return false }
            try await self.write(record.sealed())
            return true
        }
    }

    /// Whether `token` is recorded.
    public func contains(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        try await exclusively { () throws(CredentialStoreError) in try await self.load().contains(token.ledgerDigest) }
    }

    private func load() async throws(CredentialStoreError) -> ImportTokenLedgerRecord {
        guard let bytes = try await read() else { return ImportTokenLedgerRecord() }
        return try ImportTokenLedgerRecord.open(bytes)
    }

    private func exclusively<Value>(_ body: () async throws(CredentialStoreError) -> Value) async throws(CredentialStoreError) -> Value {
        do {
            try await mutex.lock()
        } catch {
            throw .leaseUnavailable("the import token ledger was not reached: the task was cancelled")
        }
        defer { mutex.unlock() }
        return try await body()
    }
}
