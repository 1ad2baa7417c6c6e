public import SessionKit
public import SessionKitCore

/// A credential store that keeps every record saved through it, in order, over an
/// ``InMemoryCredentialStore`` that holds the current one (and the guest credential).
///
/// ``SimulatedSessionEnvironment`` writes through one, so a test can prove what a session held
/// as current and what it never did: a rotated refresh token written before it was used, a
/// rejected token never saved, a journal entry written before a wipe.
public final class RecordingCredentialStore: CredentialStore, GuestCredentialStore {
    /// The store that holds the current record.
    public let base: InMemoryCredentialStore
    private let saved = Locked<[CredentialRecord]>([])

    /// Records every save through it to `base`.
    public init(base: InMemoryCredentialStore) {
        self.base = base
    }

    /// Every record saved successfully, in order.
    public var savedRecords: [CredentialRecord] { saved.withLock { $0 } }

    public func load() async throws(CredentialStoreError) -> CredentialRecord {
        try await base.load()
    }

    public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        try await base.save(record)
        saved.withLock { $0.append(record) }
    }

    public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await base.withLease(body)
    }

    public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
        try await base.loadGuest()
    }

    public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
        try await base.saveGuest(credential)
    }

    public func removeGuest() async throws(CredentialStoreError) {
        try await base.removeGuest()
    }
}
