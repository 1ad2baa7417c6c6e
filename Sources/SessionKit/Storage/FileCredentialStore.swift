import Dispatch
public import Foundation
public import SessionKitCore

/// A ``CredentialStore``, ``DeviceCredentialStore``, ``GuestCredentialStore`` and
/// ``ClientRegistrationStore`` kept in a directory of the file system, safe to share between
/// processes.
///
/// The directory (created with mode 0700) holds up to five files, each mode 0600:
/// - `credentials`: the ``CredentialRecord``;
/// - `device`: the ``DeviceCredential``, apart from the refresh token;
/// - `guest`: the ``GuestCredential`` of a guest session, apart from both;
/// - `registration`: the ``ClientRegistration`` of a dynamically registered client;
/// - `lease.lock`: the lock file behind ``withLease(_:)``.
///
/// Every write replaces a whole file atomically and durably (temporary file, `fsync`, `rename`,
/// `fsync` of the directory), so after a crash or power loss each file holds the old record or the
/// new one. Each file is framed with a magic number, a schema version, its length and a SHA-256
/// digest: a truncated, zeroed or altered file is reported as `CredentialStoreError.corrupted(_:)`
/// and one from a newer build as `CredentialStoreError.unsupportedSchemaVersion(found:supported:)`
/// — never as "signed out". A missing file is an empty record. The store never deletes or
/// rewrites a file it cannot read on its own; saving a new record replaces it.
///
/// File I/O runs on a serial dispatch queue of this store, not on the Swift concurrency pool, since
/// `fsync` can block for a long time; the queue also keeps this store's operations in call order.
public final class FileCredentialStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore, ClientRegistrationStore {
    static let credentialsFileName = "credentials"
    static let deviceFileName = "device"
    static let guestFileName = "guest"
    static let registrationFileName = "registration"
    static let leaseFileName = "lease.lock"

    /// The directory that holds the store's files.
    public let directory: URL

    private let files: StoreDirectory
    private let queue: DispatchQueue
    let lease: LeaseKeeper

    /// Creates a store in `directory`; nothing is created on disk until the first write or lease.
    ///
    /// Stores created for the same directory path in one process share their lease.
    public convenience init(directory: URL) {
        self.init(directory: directory, fileSystem: POSIXFileSystem(), sharesLease: true)
    }

    /// Creates a store over a given file system, for tests that inject failures.
    ///
    /// Such a store has a lease of its own, so its injected behaviour does not leak into other
    /// stores for the same directory.
    package convenience init(directory: URL, fileSystem: any StoreFileSystem) {
        self.init(directory: directory, fileSystem: fileSystem, sharesLease: false)
    }

    private init(directory: URL, fileSystem: any StoreFileSystem, sharesLease: Bool) {
        let absolute = directory.standardizedFileURL
        self.directory = absolute
        let path = absolute.path(percentEncoded: false)
        let files = StoreDirectory(
            path: path, fileSystem: fileSystem,
            managedNames: [Self.credentialsFileName, Self.deviceFileName, Self.guestFileName, Self.registrationFileName])
        self.files = files
        let queue = DispatchQueue(label: "SessionKit.FileCredentialStore")
        self.queue = queue
        let makeKeeper = {
            let lock = FileLock(path: files.filePath(Self.leaseFileName), fileSystem: fileSystem)
            return LeaseKeeper(crossProcess: {
                try await Self.perform(on: queue) { () throws(CredentialStoreError) in try files.prepare() }
                let descriptor = try await lock.acquire()
                return { lock.release(descriptor) }
            })
        }
        self.lease = sharesLease ? LeaseKeeper.shared(forKey: "file:" + path, makeKeeper) : makeKeeper()
    }

    // MARK: CredentialStore

    /// Reads the credential record; an empty record when none was ever saved.
    public func load() async throws(CredentialStoreError) -> CredentialRecord {
        let files = files
        return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            guard let bytes = try files.read(Self.credentialsFileName) else { return CredentialRecord() }
            return try StoredPayloadCodec.openRecord(bytes)
        }
    }

    /// Replaces the credential record atomically and durably.
    ///
    /// On `CredentialStoreError.noSpace` or `CredentialStoreError.permissionDenied(_:)` the
    /// previous record is intact.
    public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        let files = files
        let bytes = try StoredPayloadCodec.seal(record)
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.replace(Self.credentialsFileName, with: bytes)
        }
    }

    /// Runs `body` while holding the store's exclusive lease, across threads and processes.
    ///
    /// The lease is an exclusive `flock(2)` on `lease.lock` plus an in-process queue of tasks, so
    /// it also works when the store is read-only. The kernel releases it when a holder process
    /// dies. Nested calls from within `body` on a store for the same directory run directly.
    /// Throws `CancellationError` if the task is cancelled while waiting, and
    /// `CredentialStoreError.leaseUnavailable(_:)` if the lock file cannot be opened or locked.
    public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await lease.withLease(body)
    }

    // MARK: DeviceCredentialStore

    /// Reads the device credential, or nil when none was saved.
    public func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        let files = files
        return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            guard let bytes = try files.read(Self.deviceFileName) else { return nil }
            return try StoredPayloadCodec.openDevice(bytes)
        }
    }

    /// Replaces the device credential atomically and durably.
    public func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        let files = files
        let bytes = try StoredPayloadCodec.seal(credential)
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.replace(Self.deviceFileName, with: bytes)
        }
    }

    /// Deletes the device credential durably; deleting a missing one succeeds.
    public func removeDevice() async throws(CredentialStoreError) {
        let files = files
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.remove(Self.deviceFileName)
        }
    }

    // MARK: GuestCredentialStore

    /// Reads the guest credential, or nil when none was saved.
    public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
        let files = files
        return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            guard let bytes = try files.read(Self.guestFileName) else { return nil }
            return try StoredPayloadCodec.openGuest(bytes)
        }
    }

    /// Replaces the guest credential atomically and durably.
    public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
        let files = files
        let bytes = try StoredPayloadCodec.seal(credential)
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.replace(Self.guestFileName, with: bytes)
        }
    }

    /// Deletes the guest credential durably; deleting a missing one succeeds.
    public func removeGuest() async throws(CredentialStoreError) {
        let files = files
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.remove(Self.guestFileName)
        }
    }

    // MARK: ClientRegistrationStore

    /// Reads the client registration, or nil when none was saved.
    public func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
        let files = files
        return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            guard let bytes = try files.read(Self.registrationFileName) else { return nil }
            return try StoredPayloadCodec.openRegistration(bytes)
        }
    }

    /// Replaces the client registration atomically and durably.
    public func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
        let files = files
        let bytes = try StoredPayloadCodec.seal(registration)
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.replace(Self.registrationFileName, with: bytes)
        }
    }

    /// Deletes the client registration durably; deleting a missing one succeeds.
    public func removeRegistration() async throws(CredentialStoreError) {
        let files = files
        try await Self.perform(on: queue) { () throws(CredentialStoreError) in
            try files.remove(Self.registrationFileName)
        }
    }

    // MARK: Queue

    private static func perform<Value: Sendable>(
        on queue: DispatchQueue, _ work: @escaping @Sendable () throws(CredentialStoreError) -> Value
    ) async throws(CredentialStoreError) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, CredentialStoreError>, Never>) in
            queue.async {
                continuation.resume(returning: Result { () throws(CredentialStoreError) in try work() })
            }
        }
        return try result.get()
    }
}
