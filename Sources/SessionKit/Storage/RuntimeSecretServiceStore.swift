import Dispatch
package import Foundation
package import SessionKitCore

/// A credential store in the desktop keyring, through ``RuntimeSecretService`` (libsecret loaded
/// at run time): what `Session(provider:presenter:)` uses on Linux when a keyring answers, and what
/// `SessionKitSecretService`'s `SecretServiceCredentialStore` is made of.
///
/// The credential record and the device credential are two items of the default collection:
/// (`service`, `credentials`) and (`deviceService`, `device`), so the device secret never sits
/// beside the refresh token. Each holds the same framed bytes as ``FileCredentialStore``'s files
/// (schema version, kind, SHA-256): a damaged item or one from a newer build is a typed error,
/// never "signed out". The keyring has no lock of its own, so the lease is the file store's: an
/// exclusive `flock` on `leaseDirectory/<service>.lease.lock`. libsecret's calls block on D-Bus;
/// they run on a serial dispatch queue of this store, in call order, never on the Swift pool.
package final class RuntimeSecretServiceStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore {
    /// The `service` attribute of the credential record item.
    package let service: String
    /// The `service` attribute of the device credential item.
    package let deviceService: String
    /// The directory of the lease's lock file.
    package let leaseDirectory: URL
    /// The credential record's item.
    package let credentials: RuntimeSecretService.Item
    /// The device credential's item.
    package let device: RuntimeSecretService.Item
    /// The `service` attribute of the guest credential item.
    package let guestService: String
    /// The guest credential's item (an anonymous session's device secret), never beside the record.
    package let guest: RuntimeSecretService.Item
    /// The cross-process lease, shared by every store of one service in this process.
    package let lease: LeaseKeeper
    private let queue = DispatchQueue(label: "SessionKit.RuntimeSecretServiceStore")

    /// A store over the default collection; nothing is touched until first use.
    package init(service: String, deviceService: String? = nil, guestService: String? = nil, leaseDirectory: URL) {
        self.service = service
        self.deviceService = deviceService ?? service + ".device"
        self.guestService = guestService ?? service + ".guest"
        self.leaseDirectory = leaseDirectory
        credentials = .init(service: service, account: "credentials", label: "SessionKit credentials (\(service))")
        device = .init(service: self.deviceService, account: "device", label: "SessionKit device credential (\(service))")
        guest = .init(service: self.guestService, account: "guest", label: "SessionKit guest credential (\(service))")
        lease = LeaseKeeper.lockFile(in: leaseDirectory, named: service + ".lease.lock", key: "secret-service:" + service)
    }

    /// Reads the credential record; an empty record when none was saved.
    package func load() async throws(CredentialStoreError) -> CredentialRecord {
        let item = credentials
        return try await perform { () throws(CredentialStoreError) in
            guard let bytes = try RuntimeSecretService.read(item) else { return CredentialRecord() }
            return try StoredPayloadCodec.openRecord(bytes)
        }
    }

    /// Replaces the credential record item in one call.
    package func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        let item = credentials
        let bytes = try StoredPayloadCodec.seal(record)
        try await perform { () throws(CredentialStoreError) in try RuntimeSecretService.write(bytes, to: item) }
    }

    /// Runs `body` while holding the store's exclusive lease, across tasks and processes.
    package func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await lease.withLease(body)
    }

    /// Reads the device credential, or nil when none was saved.
    package func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        let item = device
        return try await perform { () throws(CredentialStoreError) in
            guard let bytes = try RuntimeSecretService.read(item) else { return nil }
            return try StoredPayloadCodec.openDevice(bytes)
        }
    }

    /// Replaces the device credential item in one call.
    package func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        let item = device
        let bytes = try StoredPayloadCodec.seal(credential)
        try await perform { () throws(CredentialStoreError) in try RuntimeSecretService.write(bytes, to: item) }
    }

    /// Deletes the device credential item; deleting a missing one succeeds.
    package func removeDevice() async throws(CredentialStoreError) {
        let item = device
        try await perform { () throws(CredentialStoreError) in try RuntimeSecretService.remove(item) }
    }

    /// Reads the guest credential, or nil when none was saved.
    package func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
        let item = guest
        return try await perform { () throws(CredentialStoreError) in
            guard let bytes = try RuntimeSecretService.read(item) else { return nil }
            return try StoredPayloadCodec.openGuest(bytes)
        }
    }

    /// Replaces the guest credential item in one call.
    package func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
        let item = guest
        let bytes = try StoredPayloadCodec.seal(credential)
        try await perform { () throws(CredentialStoreError) in try RuntimeSecretService.write(bytes, to: item) }
    }

    /// Deletes the guest credential item; deleting a missing one succeeds.
    package func removeGuest() async throws(CredentialStoreError) {
        let item = guest
        try await perform { () throws(CredentialStoreError) in try RuntimeSecretService.remove(item) }
    }

    /// ``RuntimeSecretService/unavailabilityReason()``, off the concurrency pool.
    package static func unavailabilityReason() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            DispatchQueue.global().async { continuation.resume(returning: RuntimeSecretService.unavailabilityReason()) }
        }
    }

    func perform<Value: Sendable>(
        _ work: @escaping @Sendable () throws(CredentialStoreError) -> Value
    ) async throws(CredentialStoreError) -> Value {
        let queue = self.queue
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, CredentialStoreError>, Never>) in
            queue.async { continuation.resume(returning: Result { () throws(CredentialStoreError) in try work() }) }
        }
        return try result.get()
    }
}
