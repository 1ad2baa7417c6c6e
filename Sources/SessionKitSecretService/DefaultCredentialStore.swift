public import Foundation
public import SessionKit
public import SessionKitCore

/// The platform's secure credential store, chosen once, with the choice on record.
///
/// - Apple platforms: `KeychainCredentialStore` (`AfterFirstUnlockThisDeviceOnly`), always.
/// - Linux with a desktop keyring: ``SecretServiceCredentialStore`` in its default collection.
/// - Where no keyring answers (a headless server, a container): `FileCredentialStore` in
///   `directory`, and ``backend`` says so, with the reason, as ``Backend/file(reason:)``. Nothing
///   falls back silently: read ``backend`` (or ``fallbackReason``) once and tell the person or log it.
///
/// ```swift
/// let store = await DefaultCredentialStore.make(service: "com.example.cli", directory: stateDirectory)
/// if let reason = store.fallbackReason { print("Keeping the session in \(stateDirectory.path): \(reason)") }
/// ```
///
/// The choice is made when the store is made; it does not change while the process runs.
public final class DefaultCredentialStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore {
    /// Which store holds the credentials.
    @nonexhaustive
    public enum Backend: Sendable, Hashable, CustomStringConvertible {
        /// The Keychain (Apple platforms).
        case keychain
        /// The desktop keyring through the Secret Service (Linux).
        case secretService
        /// Files in the given directory, because no keyring was reachable; `reason` says why.
        case file(reason: String)

        /// A phrase for logs.
        public var description: String {
            switch self {
            case .keychain: "Keychain"
            case .secretService: "Secret Service keyring"
            case .file(let reason): "files (no keyring: \(reason))"
            }
        }
    }

    /// Which store was chosen, and why when it is the file store.
    public let backend: Backend
    /// The chosen store itself.
    public let store: any CredentialStore & DeviceCredentialStore & GuestCredentialStore

    /// Why the credentials are kept in files instead of a keyring, or `nil` when a keyring holds them.
    public var fallbackReason: String? {
        if case .file(let reason) = backend { return reason }
        return nil
    }

    private init(backend: Backend, store: any CredentialStore & DeviceCredentialStore & GuestCredentialStore) {
        self.backend = backend
        self.store = store
    }

    /// Chooses the platform's store.
    ///
    /// - Parameters:
    ///   - service: the Keychain service or Secret Service `service` attribute, e.g. the app's identifier.
    ///   - directory: where the file store lives if there is no keyring, and where the lease's lock
    ///     file is kept (shared by every process using the credentials).
    public static func make(service: String, directory: URL) async -> DefaultCredentialStore {
        await make(service: service, directory: directory) {
            #if canImport(Security)
                "this platform has no Secret Service support"
            #else
                await SecretServiceCredentialStore.unavailabilityReason()
            #endif
        }
    }

    /// Chooses with a given keyring probe (nil: reachable; else the reason it is not), for tests.
    static func make(
        service: String, directory: URL, probe: @Sendable () async -> String?
    ) async -> DefaultCredentialStore {
        #if canImport(Security)
            return DefaultCredentialStore(backend: .keychain, store: KeychainCredentialStore(service: service, leaseDirectory: directory))
        #else
            if let reason = await probe() {
                return DefaultCredentialStore(backend: .file(reason: reason), store: FileCredentialStore(directory: directory))
            }
            return DefaultCredentialStore(
                backend: .secretService, store: SecretServiceCredentialStore(service: service, leaseDirectory: directory))
        #endif
    }

    // MARK: Forwarding

    /// Reads the credential record from the chosen store.
    public func load() async throws(CredentialStoreError) -> CredentialRecord {
        try await store.load()
    }

    /// Replaces the credential record in the chosen store.
    public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        try await store.save(record)
    }

    /// Runs `body` under the chosen store's lease.
    public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await store.withLease(body)
    }

    /// Reads the device credential from the chosen store.
    public func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        try await store.loadDevice()
    }

    /// Replaces the device credential in the chosen store.
    public func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        try await store.saveDevice(credential)
    }

    /// Deletes the device credential from the chosen store.
    public func removeDevice() async throws(CredentialStoreError) {
        try await store.removeDevice()
    }

    /// Reads the guest credential from the chosen store.
    public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
        try await store.loadGuest()
    }

    /// Replaces the guest credential in the chosen store.
    public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
        try await store.saveGuest(credential)
    }

    /// Deletes the guest credential from the chosen store.
    public func removeGuest() async throws(CredentialStoreError) {
        try await store.removeGuest()
    }
}
