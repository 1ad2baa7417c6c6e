#if canImport(CSessionKitSecret)
    import CSessionKitSecret
    import Dispatch
    import Foundation
    import SessionKit

    /// A `CredentialStore`, `DeviceCredentialStore` and `GuestCredentialStore` in the desktop
    /// keyring, through the freedesktop Secret Service (GNOME Keyring, KeePassXC, KWallet's bridge)
    /// and `libsecret`.
    ///
    /// The credential record, the device credential and the guest credential are items of the
    /// default collection, found by the attributes `service` and `account`: (`service`,
    /// `credentials`), (`deviceService`, `device`) and (`guestService`, `guest`), so no device
    /// secret ever sits beside the refresh token. Each
    /// holds the same framed bytes as `FileCredentialStore`'s files (schema version, kind, SHA-256):
    /// a damaged item or one from a newer build is a typed error, never "signed out". Each save
    /// replaces the whole item in one Secret Service call (`CreateItem` with `replace`), so a reader
    /// sees the old record or the new one.
    ///
    /// The keyring has no lock of its own, so ``withLease(_:)`` is the file store's lease: an
    /// exclusive `flock` on `leaseDirectory/<service>.lease.lock`, which every process using these
    /// items must share.
    ///
    /// libsecret's calls block on D-Bus; they run on a serial dispatch queue of this store, never on
    /// the Swift concurrency pool, and in call order.
    public final class SecretServiceCredentialStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore {
        /// Where one item lives.
        struct Item: Sendable {
            var service: String
            var account: String
            var label: String
        }

        /// The `service` attribute of the credential record item.
        public let service: String
        /// The `service` attribute of the device credential item.
        public let deviceService: String
        /// The `service` attribute of the guest credential item.
        public let guestService: String
        /// The directory of the lease's lock file.
        public let leaseDirectory: URL

        let credentials: Item
        let device: Item
        let guest: Item
        let lease: LeaseKeeper
        private let queue = DispatchQueue(label: "SessionKit.SecretServiceCredentialStore")

        /// Creates a store over the default keyring collection; nothing is touched until first use.
        ///
        /// - Parameters:
        ///   - service: the `service` attribute of the record item, e.g. the app's identifier.
        ///   - deviceService: the device credential's `service` attribute; `service + ".device"` by default.
        ///   - guestService: the guest credential's `service` attribute; `service + ".guest"` by default.
        ///   - leaseDirectory: a directory every process using these items can reach (created with
        ///     mode 0700), for the cross-process lease.
        public init(service: String, deviceService: String? = nil, guestService: String? = nil, leaseDirectory: URL) {
            self.service = service
            self.deviceService = deviceService ?? service + ".device"
            self.guestService = guestService ?? service + ".guest"
            self.leaseDirectory = leaseDirectory
            credentials = Item(service: service, account: "credentials", label: "SessionKit credentials (\(service))")
            device = Item(service: self.deviceService, account: "device", label: "SessionKit device credential (\(service))")
            guest = Item(service: self.guestService, account: "guest", label: "SessionKit guest credential (\(service))")
            lease = LeaseKeeper.lockFile(in: leaseDirectory, named: service + ".lease.lock", key: "secret-service:" + service)
        }

        // MARK: CredentialStore

        /// Reads the credential record; an empty record when none was saved.
        public func load() async throws(CredentialStoreError) -> CredentialRecord {
            let item = credentials
            return try await perform { () throws(CredentialStoreError) in
                guard let bytes = try SecretServiceItems.read(item) else { return CredentialRecord() }
                return try StoredPayloadCodec.openRecord(bytes)
            }
        }

        /// Replaces the credential record item in one call.
        public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
            let item = credentials
            let bytes = try StoredPayloadCodec.seal(record)
            try await perform { () throws(CredentialStoreError) in try SecretServiceItems.write(bytes, to: item) }
        }

        /// Runs `body` while holding the store's exclusive lease, across tasks and processes.
        ///
        /// Throws `CancellationError` if the task is cancelled while waiting, and
        /// `CredentialStoreError.leaseUnavailable(_:)` if the lock file cannot be opened or locked.
        public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
            try await lease.withLease(body)
        }

        // MARK: DeviceCredentialStore

        /// Reads the device credential, or nil when none was saved.
        public func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
            let item = device
            return try await perform { () throws(CredentialStoreError) in
                guard let bytes = try SecretServiceItems.read(item) else { return nil }
                return try StoredPayloadCodec.openDevice(bytes)
            }
        }

        /// Replaces the device credential item in one call.
        public func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
            let item = device
            let bytes = try StoredPayloadCodec.seal(credential)
            try await perform { () throws(CredentialStoreError) in try SecretServiceItems.write(bytes, to: item) }
        }

        /// Deletes the device credential item; deleting a missing one succeeds.
        public func removeDevice() async throws(CredentialStoreError) {
            let item = device
            try await perform { () throws(CredentialStoreError) in try SecretServiceItems.remove(item) }
        }

        // MARK: GuestCredentialStore

        /// Reads the guest credential, or nil when none was saved.
        public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
            let item = guest
            return try await perform { () throws(CredentialStoreError) in
                guard let bytes = try SecretServiceItems.read(item) else { return nil }
                return try StoredPayloadCodec.openGuest(bytes)
            }
        }

        /// Replaces the guest credential item in one call.
        public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
            let item = guest
            let bytes = try StoredPayloadCodec.seal(credential)
            try await perform { () throws(CredentialStoreError) in try SecretServiceItems.write(bytes, to: item) }
        }

        /// Deletes the guest credential item; deleting a missing one succeeds.
        public func removeGuest() async throws(CredentialStoreError) {
            let item = guest
            try await perform { () throws(CredentialStoreError) in try SecretServiceItems.remove(item) }
        }

        // MARK: Reachability

        /// Whether a Secret Service answers on the session bus and has a default collection;
        /// `nil` when it does, else why not (the system's message, never a value).
        public static func unavailabilityReason() async -> String? {
            await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
                DispatchQueue.global().async { continuation.resume(returning: SecretServiceItems.unavailabilityReason()) }
            }
        }

        // MARK: Queue

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
#endif
