import Dispatch
public import Foundation

/// An ``ImportTokenLedger`` kept as one file, `import-tokens`, in a store directory: the
/// credential store's own directory (`init(besides:capacity:)`, which SessionKit adds for its
/// `FileCredentialStore`) or any other.
///
/// The file is written like the credential store's records: replaced atomically and durably
/// (temporary file, `fsync`, `rename`, `fsync` of the directory), mode 0600 in a 0700 directory,
/// framed with a schema version and a SHA-256 digest. A damaged file is a typed error, which the
/// coordinator treats as "do not import": at most once wins over convenience. Operations run in
/// call order on a queue of this ledger, off the concurrency pool.
public final class FileImportTokenLedger: ImportTokenLedger {
    static let fileName = "import-tokens"
    /// How many tokens a ledger remembers unless told otherwise.
    public static let defaultCapacity = 256

    /// The directory that holds the ledger's file.
    public let directory: URL
    /// How many tokens the ledger remembers; the oldest are forgotten first.
    public let capacity: Int

    private let files: StoreDirectory
    private let queue = DispatchQueue(label: "SessionKit.FileImportTokenLedger")

    /// A ledger in `directory`; nothing is written until the first token is marked.
    public convenience init(directory: URL, capacity: Int = defaultCapacity) {
        self.init(directory: directory, fileSystem: POSIXFileSystem(), capacity: capacity)
    }

    /// A ledger over a given file system, for tests that inject failures.
    package init(directory: URL, fileSystem: any StoreFileSystem, capacity: Int) {
        let absolute = directory.standardizedFileURL
        self.directory = absolute
        self.capacity = max(capacity, 1)
        self.files = StoreDirectory(path: absolute.path(percentEncoded: false), fileSystem: fileSystem, managedNames: [Self.fileName])
    }

    /// Records `token` durably; `false` when it was recorded already.
    public func markUsed(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        let files = files
        let capacity = capacity
        let digest = token.ledgerDigest
        return try await perform { () throws(CredentialStoreError) in
            var record = try Self.load(files)
            guard record.insert(digest, capacity: capacity) else { return false }
            try files.replace(Self.fileName, with: record.sealed())
            return true
        }
    }

    /// Whether `token` is recorded.
    public func contains(_ token: CredentialImportToken) async throws(CredentialStoreError) -> Bool {
        let files = files
        let digest = token.ledgerDigest
        return try await perform { () throws(CredentialStoreError) in try Self.load(files).contains(digest) }
    }

    private static func load(_ files: StoreDirectory) throws(CredentialStoreError) -> ImportTokenLedgerRecord {
        guard let bytes = try files.read(fileName) else { return ImportTokenLedgerRecord() }
        return try ImportTokenLedgerRecord.open(bytes)
    }

    private func perform<Value: Sendable>(
        _ work: @escaping @Sendable () throws(CredentialStoreError) -> Value
    ) async throws(CredentialStoreError) -> Value {
        let queue = queue
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, CredentialStoreError>, Never>) in
            queue.async {
                continuation.resume(returning: Result { () throws(CredentialStoreError) in try work() })
            }
        }
        return try result.get()
    }
}
