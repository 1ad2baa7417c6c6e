#if !canImport(Security)
    public import Foundation
    public import SessionKit
    public import SessionKitCore

    /// The keyring calls the store is made of, named for the tests and tools of this module.
    typealias SecretServiceItems = RuntimeSecretService

    /// A `CredentialStore` and `DeviceCredentialStore` in the desktop keyring, through the
    /// freedesktop Secret Service (GNOME Keyring, KeePassXC, KWallet's bridge) and `libsecret`,
    /// which SessionKit loads at run time (no build-time dependency on its headers).
    ///
    /// The credential record and the device credential are two items of the default collection,
    /// found by the attributes `service` and `account`: (`service`, `credentials`) and
    /// (`deviceService`, `device`), so the device secret never sits beside the refresh token. Each
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
    /// the Swift concurrency pool, and in call order. `Session(provider:presenter:)` uses the same
    /// items on Linux whenever a keyring answers (service `sessionkit.<client id>`).
    public final class SecretServiceCredentialStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore {
        /// The `service` attribute of the credential record item.
        public var service: String { keyring.service }
        /// The `service` attribute of the device credential item.
        public var deviceService: String { keyring.deviceService }
        /// The `service` attribute of the guest credential item.
        public var guestService: String { keyring.guestService }
        /// The directory of the lease's lock file.
        public var leaseDirectory: URL { keyring.leaseDirectory }

        let keyring: RuntimeSecretServiceStore
        var credentials: RuntimeSecretService.Item { keyring.credentials }
        var device: RuntimeSecretService.Item { keyring.device }
        var guest: RuntimeSecretService.Item { keyring.guest }
        var lease: LeaseKeeper { keyring.lease }

        /// Creates a store over the default keyring collection; nothing is touched until first use.
        ///
        /// - Parameters:
        ///   - service: the `service` attribute of the record item, e.g. the app's identifier.
        ///   - deviceService: the device credential's `service` attribute; `service + ".device"` by default.
        ///   - guestService: the guest credential's `service` attribute; `service + ".guest"` by default.
        ///   - leaseDirectory: a directory every process using these items can reach (created with
        ///     mode 0700), for the cross-process lease.
        public init(service: String, deviceService: String? = nil, guestService: String? = nil, leaseDirectory: URL) {
            keyring = RuntimeSecretServiceStore(
                service: service, deviceService: deviceService, guestService: guestService, leaseDirectory: leaseDirectory)
        }

        // MARK: CredentialStore

        /// Reads the credential record; an empty record when none was saved.
        public func load() async throws(CredentialStoreError) -> CredentialRecord {
            try await keyring.load()
        }

        /// Replaces the credential record item in one call.
        public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
            try await keyring.save(record)
        }

        /// Runs `body` while holding the store's exclusive lease, across tasks and processes.
        ///
        /// Throws `CancellationError` if the task is cancelled while waiting, and
        /// `CredentialStoreError.leaseUnavailable(_:)` if the lock file cannot be opened or locked.
        public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
            try await keyring.withLease(body)
        }

        // MARK: DeviceCredentialStore

        /// Reads the device credential, or nil when none was saved.
        public func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
            try await keyring.loadDevice()
        }

        /// Replaces the device credential item in one call.
        public func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
            try await keyring.saveDevice(credential)
        }

        /// Deletes the device credential item; deleting a missing one succeeds.
        public func removeDevice() async throws(CredentialStoreError) {
            try await keyring.removeDevice()
        }

        // MARK: GuestCredentialStore

        /// Reads the guest credential, or nil when none was saved.
        public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
            try await keyring.loadGuest()
        }

        /// Replaces the guest credential item in one call.
        public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
            try await keyring.saveGuest(credential)
        }

        /// Deletes the guest credential item; deleting a missing one succeeds.
        public func removeGuest() async throws(CredentialStoreError) {
            try await keyring.removeGuest()
        }

        // MARK: Reachability

        /// Whether libsecret loads and a Secret Service answers on the session bus with a default
        /// collection; `nil` when it does, else why not (the system's message, never a value).
        public static func unavailabilityReason() async -> String? {
            await RuntimeSecretServiceStore.unavailabilityReason()
        }
    }
#endif
