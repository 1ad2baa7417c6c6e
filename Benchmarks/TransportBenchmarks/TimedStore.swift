import SessionKit
import Synchronization

/// A ``CredentialStore`` that passes every call on and records how long loads, saves and taking
/// and giving back the lease took.
struct TimedStore: CredentialStore {
    var base: any CredentialStore
    var phases: PhaseClock

    func load() async throws(CredentialStoreError) -> CredentialRecord {
        let start = phases.now
        defer { phases.add(.load, since: start) }
        return try await base.load()
    }

    func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        let start = phases.now
        defer { phases.add(.save, since: start) }
        try await base.save(record)
    }

    func withLease<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        let phases = self.phases
        let start = phases.now
        let bodyEnd = Mutex<ContinuousClock.Instant?>(nil)
        defer { if let end = bodyEnd.withLock({ $0 }) { phases.add(.leaseRelease, since: end) } }
        return try await base.withLease { () async throws -> Result in
            phases.add(.leaseAcquire, since: start)
            defer { bodyEnd.withLock { $0 = phases.now } }
            return try await body()
        }
    }
}
