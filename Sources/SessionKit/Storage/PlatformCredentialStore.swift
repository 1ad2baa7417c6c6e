package import Foundation
package import SessionKitCore

/// The store `Session(provider:presenter:)` uses where there is no Keychain: the desktop keyring
/// whenever a Secret Service answers, else files, with the reason on record.
///
/// The choice is made once, on first use (the probe is a D-Bus round trip, kept off the
/// initialiser), and holds while the process runs. Credentials never go to files while a keyring
/// answers: the probe comes before the first read or write.
package final class PlatformCredentialStore: CredentialStore, DeviceCredentialStore, ClientRegistrationStore {
    /// Where the credentials are kept.
    package enum Choice: Sendable {
        /// In the desktop keyring.
        case keyring(RuntimeSecretServiceStore)
        /// In files, because no keyring answered; `reason` says why.
        case files(FileCredentialStore, reason: String)

        var store: any CredentialStore & DeviceCredentialStore & ClientRegistrationStore {
            switch self {
            case .keyring(let store): store
            case .files(let store, _): store
            }
        }
    }

    /// The keyring items' `service` attribute.
    package let service: String
    /// The file store's directory, and the keyring lease's lock directory.
    package let directory: URL
    private let probe: @Sendable () async -> String?
    private let decided = Locked<Task<Choice, Never>?>(nil)

    /// A store that asks `probe` (nil: a keyring answers; else the reason none does) on first use.
    package init(
        service: String, directory: URL, probe: @escaping @Sendable () async -> String? = RuntimeSecretServiceStore.unavailabilityReason
    ) {
        self.service = service
        self.directory = directory
        self.probe = probe
    }

    /// The store chosen (choosing it now if nothing has been read or written yet).
    package func choice() async -> Choice {
        let task = decided.withLock { decided in
            if let decided { return decided }
            let (service, directory, probe) = (self.service, self.directory, self.probe)
            let task = Task<Choice, Never> {
                if let reason = await probe() { return .files(FileCredentialStore(directory: directory), reason: reason) }
                return .keyring(RuntimeSecretServiceStore(service: service, leaseDirectory: directory))
            }
            decided = task
            return task
        }
        return await task.value
    }

    /// Why the credentials are kept in files, or nil when the keyring holds them.
    package func fallbackReason() async -> String? {
        if case .files(_, let reason) = await choice() { return reason }
        return nil
    }

    /// Reads the credential record from the chosen store.
    package func load() async throws(CredentialStoreError) -> CredentialRecord {
        try await choice().store.load()
    }

    /// Replaces the credential record in the chosen store.
    package func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        try await choice().store.save(record)
    }

    /// Runs `body` under the chosen store's lease.
    package func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
        try await choice().store.withLease(body)
    }

    /// Reads the device credential from the chosen store.
    package func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        try await choice().store.loadDevice()
    }

    /// Replaces the device credential in the chosen store.
    package func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        try await choice().store.saveDevice(credential)
    }

    /// Deletes the device credential from the chosen store.
    package func removeDevice() async throws(CredentialStoreError) {
        try await choice().store.removeDevice()
    }

    /// Reads the client registration from the chosen store.
    package func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
        try await choice().store.loadRegistration()
    }

    /// Replaces the client registration in the chosen store.
    package func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
        try await choice().store.saveRegistration(registration)
    }

    /// Deletes the client registration from the chosen store.
    package func removeRegistration() async throws(CredentialStoreError) {
        try await choice().store.removeRegistration()
    }
}
