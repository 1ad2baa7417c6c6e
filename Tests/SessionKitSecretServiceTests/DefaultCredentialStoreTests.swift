import Foundation
import SessionKit
import Testing

@testable import SessionKitSecretService

/// Which store the platform default picks, and that a fallback is never silent.
struct DefaultCredentialStoreTests {
    private static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-default-\(UUID().uuidString)")
    }

    @Test func withoutAKeyringTheFileStoreIsUsedAndSaysWhy() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let store = await DefaultCredentialStore.make(service: "SessionKitTests.none", directory: directory) { "no session bus" }

        #expect(store.backend == .file(reason: "no session bus"))
        #expect(store.fallbackReason == "no session bus")
        #expect(store.store is FileCredentialStore)
        try await store.save(KeyringFixture.record)
        #expect(try await FileCredentialStore(directory: directory).load() == KeyringFixture.record, "the record is in the directory")
        try await store.saveDevice(KeyringFixture.device)
        #expect(try await store.loadDevice() == KeyringFixture.device)
        try await store.saveRegistration(KeyringFixture.registration)
        #expect(
            try await FileCredentialStore(directory: directory).loadRegistration() == KeyringFixture.registration,
            "the registration is in the directory's registration file")
        try await store.removeRegistration()
        #expect(try await store.loadRegistration() == nil)
    }

    @Test(.enabled("needs a Secret Service on the session bus") { await KeyringFixture.isReachable() })
    func withAKeyringTheClientRegistrationIsAKeyringItemToo() async throws {
        let directory = Self.directory()
        let service = "SessionKitTests.\(UUID().uuidString)"
        let store = await DefaultCredentialStore.make(service: service, directory: directory)
        let keyring = SecretServiceCredentialStore(service: service, leaseDirectory: directory)
        defer {
            try? SecretServiceItems.remove(keyring.keyring.registration)
            try? FileManager.default.removeItem(at: directory)
        }
        #expect(store.backend == .secretService)

        try await store.saveRegistration(KeyringFixture.registration)

        #expect(try await keyring.loadRegistration() == KeyringFixture.registration, "the registration is in the keyring")
        #expect(try await store.loadRegistration() == KeyringFixture.registration)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("registration").path), "nothing in files")
    }

    @Test(.enabled("needs a Secret Service on the session bus") { await KeyringFixture.isReachable() })
    func withAKeyringTheSecretServiceIsUsed() async throws {
        let directory = Self.directory()
        let service = "SessionKitTests.\(UUID().uuidString)"
        let store = await DefaultCredentialStore.make(service: service, directory: directory)
        defer {
            let keyring = SecretServiceCredentialStore(service: service, leaseDirectory: directory)
            try? SecretServiceItems.remove(keyring.credentials)
            try? FileManager.default.removeItem(at: directory)
        }

        #expect(store.backend == .secretService)
        #expect(store.fallbackReason == nil)
        try await store.save(KeyringFixture.record)
        #expect(try await SecretServiceCredentialStore(service: service, leaseDirectory: directory).load() == KeyringFixture.record)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("credentials").path), "nothing in files")
    }

    @Test(.enabled("needs a Secret Service on the session bus") { await KeyringFixture.isReachable() })
    func withAKeyringTheImportTokenLedgerIsAKeyringItemToo() async throws {
        let directory = Self.directory()
        let service = "SessionKitTests.\(UUID().uuidString)"
        let store = await DefaultCredentialStore.make(service: service, directory: directory)
        let keyring = SecretServiceCredentialStore(service: service, leaseDirectory: directory)
        defer {
            try? SecretServiceItems.remove(keyring.keyring.importTokenLedger)
            try? FileManager.default.removeItem(at: directory)
        }
        #expect(store.backend == .secretService)
        let token = CredentialImportToken(UUID(uuidString: "00000000-0000-4000-8000-0000000000D1")!)

        #expect(try await store.makeImportTokenLedger().markUsed(token))

        #expect(try await keyring.makeImportTokenLedger().contains(token), "the mark is in the keyring")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("import-tokens").path), "nothing in files")
    }

    /// Run outside any D-Bus session (plain `swift test`, or the test script's headless step).
    @Test(.enabled("runs where no Secret Service answers") { await !KeyringFixture.isReachable() })
    func aHeadlessMachineFallsBackToFilesWithTheSystemsReason() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let store = await DefaultCredentialStore.make(service: "SessionKitTests.headless", directory: directory)

        let reason = try #require(store.fallbackReason)
        #expect(!reason.isEmpty)
        #expect(store.store is FileCredentialStore)
        #expect(store.backend.description == "files (no keyring: \(reason))")
    }
}
