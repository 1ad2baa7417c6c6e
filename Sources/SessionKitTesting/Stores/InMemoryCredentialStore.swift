public import SessionKit
public import SessionKitCore
import Synchronization

/// A `CredentialStore`, `DeviceCredentialStore`, `GuestCredentialStore` and
/// `ClientRegistrationStore` held in memory, with hooks for tests.
///
/// It behaves like the durable stores where a session can tell: whole-record replaces, a failed
/// save leaves the previous record in place, and ``withLease(_:)`` is exclusive (within this
/// process) and reentrant in the same way. Tests can make the next operations fail, count
/// operations, and read or replace the stored values directly — for instance to play another
/// process that refreshed in the meantime.
public final class InMemoryCredentialStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore,
    ClientRegistrationStore
{
    /// A store operation, for ``failNext(_:times:with:)`` and ``count(of:)``.
    @nonexhaustive
    public enum Operation: Sendable, Hashable, CaseIterable {
        /// `CredentialStore.load()`.
        case load
        /// `CredentialStore.save(_:)`.
        case save
        /// `DeviceCredentialStore.loadDevice()`.
        case loadDevice
        /// `DeviceCredentialStore.saveDevice(_:)`.
        case saveDevice
        /// `DeviceCredentialStore.removeDevice()`.
        case removeDevice
        /// `GuestCredentialStore.loadGuest()`.
        case loadGuest
        /// `GuestCredentialStore.saveGuest(_:)`.
        case saveGuest
        /// `GuestCredentialStore.removeGuest()`.
        case removeGuest
        /// `ClientRegistrationStore.loadRegistration()`.
        case loadRegistration
        /// `ClientRegistrationStore.saveRegistration(_:)`.
        case saveRegistration
        /// `ClientRegistrationStore.removeRegistration()`.
        case removeRegistration
    }

    private struct State {
        var record: CredentialRecord
        var device: DeviceCredential?
        var guest: GuestCredential?
        var registration: ClientRegistration?
        var counts: [Operation: Int] = [:]
        var failures: [Operation: [CredentialStoreError]] = [:]
        var leaseCount = 0
    }

    private let state: Locked<State>
    private let lease = LeaseKeeper(crossProcess: nil)

    /// Creates a store holding `record`, `device` and `guest`.
    public init(record: CredentialRecord = CredentialRecord(), device: DeviceCredential? = nil, guest: GuestCredential? = nil) {
        state = Locked(State(record: record, device: device, guest: guest))
    }

    // MARK: Test hooks

    /// The stored record, read without counting or failing.
    public var record: CredentialRecord {
        state.withLock { $0.record }
    }

    /// The stored client registration, read without counting or failing.
    public var registration: ClientRegistration? {
        state.withLock { $0.registration }
    }

    /// The stored device credential, read without counting or failing.
    public var device: DeviceCredential? {
        state.withLock { $0.device }
    }

    /// The stored guest credential, read without counting or failing.
    public var guest: GuestCredential? {
        state.withLock { $0.guest }
    }

    /// Replaces the stored guest credential without counting or failing (for instance to play a
    /// restored backup that lost the secret).
    public func replaceGuest(_ guest: GuestCredential?) {
        state.withLock { $0.guest = guest }
        changes.notify()
    }

    /// Replaces the stored record without counting or failing, as another process would.
    public func replaceRecord(_ record: CredentialRecord) {
        state.withLock { $0.record = record }
        changes.notify()
    }

    /// Replaces the stored device credential without counting or failing.
    public func replaceDevice(_ device: DeviceCredential?) {
        state.withLock { $0.device = device }
    }

    /// Makes the next `times` calls of `operation` fail with `error`, leaving the stored values as
    /// they were. Failures queue up behind ones set earlier.
    public func failNext(_ operation: Operation, times: Int = 1, with error: CredentialStoreError) {
        guard times > 0 else { return }
        state.withLock { $0.failures[operation, default: []] += Array(repeating: error, count: times) }
    }

    /// Makes the next `count` saves fail with `error` (for example `CredentialStoreError.noSpace`).
    public func failNextSaves(_ count: Int, with error: CredentialStoreError) {
        failNext(.save, times: count, with: error)
    }

    /// How many times `operation` was called, failed calls included.
    public func count(of operation: Operation) -> Int {
        state.withLock { $0.counts[operation, default: 0] }
    }

    /// How many times ``save(_:)`` was called, failed calls included.
    public var saveCount: Int { count(of: .save) }

    /// How many ``withLease(_:)`` bodies ran, nested ones included; a call cancelled while
    /// waiting is not counted.
    public var leaseCount: Int {
        state.withLock { $0.leaseCount }
    }

    /// Whether some task holds the lease right now.
    public var isLeaseHeld: Bool { lease.isHeld }

    /// Notified after every load, save and lease change, for ``SimulatedSessionEnvironment``'s waits.
    package let changes = SessionChangeFeed()

    // MARK: CredentialStore

    /// Returns the stored record, or the next injected load failure.
    public func load() async throws(CredentialStoreError) -> CredentialRecord {
        try perform(.load) { $0.record }
    }

    /// Replaces the stored record, or throws the next injected save failure and keeps the old one.
    public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        try perform(.save) { $0.record = record }
    }

    /// Runs `body` while holding this store's lease; other tasks wait, nested calls run directly.
    public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        defer { changes.notify() }
        return try await lease.withLease {
            self.state.withLock { $0.leaseCount += 1 }
            changes.notify()
            return try await body()
        }
    }

    // MARK: DeviceCredentialStore

    /// Returns the stored device credential, or the next injected failure.
    public func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        try perform(.loadDevice) { $0.device }
    }

    /// Replaces the device credential, or throws the next injected failure and keeps the old one.
    public func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        try perform(.saveDevice) { $0.device = credential }
    }

    /// Forgets the device credential, or throws the next injected failure and keeps it.
    public func removeDevice() async throws(CredentialStoreError) {
        try perform(.removeDevice) { $0.device = nil }
    }

    // MARK: GuestCredentialStore

    /// Returns the stored guest credential, or the next injected failure.
    public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
        try perform(.loadGuest) { $0.guest }
    }

    /// Replaces the guest credential, or throws the next injected failure and keeps the old one.
    public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
        try perform(.saveGuest) { $0.guest = credential }
    }

    /// Forgets the guest credential, or throws the next injected failure and keeps it.
    public func removeGuest() async throws(CredentialStoreError) {
        try perform(.removeGuest) { $0.guest = nil }
    }

    // MARK: ClientRegistrationStore

    /// Returns the stored client registration, or the next injected failure.
    public func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
        try perform(.loadRegistration) { $0.registration }
    }

    /// Replaces the client registration, or throws the next injected failure and keeps the old one.
    public func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
        try perform(.saveRegistration) { $0.registration = registration }
    }

    /// Forgets the client registration, or throws the next injected failure and keeps it.
    public func removeRegistration() async throws(CredentialStoreError) {
        try perform(.removeRegistration) { $0.registration = nil }
    }

    private func perform<Value: Sendable>(
        _ operation: Operation, _ body: (inout State) -> Value
    ) throws(CredentialStoreError) -> Value {
        defer { changes.notify() }
        let outcome = state.withLock { state -> Result<Value, CredentialStoreError> in
            state.counts[operation, default: 0] += 1
            if var queued = state.failures[operation], !queued.isEmpty {
                let error = queued.removeFirst()
                state.failures[operation] = queued.isEmpty ? nil : queued
                return .failure(error)
            }
            return .success(body(&state))
        }
        return try outcome.get()
    }
}
