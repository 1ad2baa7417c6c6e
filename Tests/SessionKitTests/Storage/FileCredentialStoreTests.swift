import Foundation
import Testing

@testable import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("File credential store")
struct FileCredentialStoreTests {
    @Test func missingStoreReadsAsEmptyWithoutCreatingAnything() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        #expect(try await store.load() == CredentialRecord())
        #expect(try await store.loadDevice() == nil)
        #expect(!Files.exists(directory.storePath))
    }

    @Test func recordAndDeviceRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        #expect(try await store.load() == StoreFixtures.fullRecord)
        #expect(try await store.loadDevice() == StoreFixtures.device)

        // A second store value, as another process would open it, reads the same.
        let other = FileCredentialStore(directory: directory.storeURL)
        #expect(try await other.load() == StoreFixtures.fullRecord)
        #expect(try await other.loadDevice() == StoreFixtures.device)
    }

    @Test func saveReplacesTheWholeRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.fullRecord)
        try await store.save(StoreFixtures.record(rotation: 3))
        #expect(try await store.load() == StoreFixtures.record(rotation: 3))
        try await store.save(CredentialRecord())
        #expect(try await store.load().isEmpty)
    }

    @Test func directoryIs0700AndFilesAre0600() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nested = directory.path + "/a/b/store"
        let store = FileCredentialStore(directory: URL(fileURLWithPath: nested))
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        try await store.withLease {}
        #expect(Files.permissions(directory.path + "/a") == 0o700)
        #expect(Files.permissions(directory.path + "/a/b") == 0o700)
        #expect(Files.permissions(nested) == 0o700)
        #expect(Files.permissions(nested + "/credentials") == 0o600)
        #expect(Files.permissions(nested + "/device") == 0o600)
        #expect(Files.permissions(nested + "/lease.lock") == 0o600)
        #expect(Files.names(in: nested) == ["credentials", "device", "lease.lock"])
    }

    @Test func permissiveFileModeIsTightenedByTheNextSave() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.record())
        chmod(directory.storePath + "/credentials", 0o644)
        try await store.save(StoreFixtures.record(rotation: 2))
        #expect(Files.permissions(directory.storePath + "/credentials") == 0o600)
    }

    @Test func deviceSecretAndRefreshTokenLiveInSeparateFiles() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        let credentials = String(decoding: try Files.bytes(directory.storePath + "/credentials"), as: UTF8.self)
        let device = String(decoding: try Files.bytes(directory.storePath + "/device"), as: UTF8.self)
        #expect(credentials.contains("refresh-token-value"))
        #expect(!credentials.contains("device-secret-value"))
        #expect(device.contains("device-secret-value"))
        #expect(!device.contains("refresh-token-value"))
    }

    @Test func removeDeviceForgetsOnlyTheDevice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.removeDevice()
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        try await store.removeDevice()
        #expect(try await store.loadDevice() == nil)
        #expect(!Files.exists(directory.storePath + "/device"))
        #expect(try await store.load() == StoreFixtures.fullRecord)
        try await store.removeDevice()
    }

    @Test func storeLocationThatIsAFileIsAnIOFailure() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Files.write([1, 2, 3], to: directory.storePath)
        let store = FileCredentialStore(directory: directory.storeURL)
        await #expect(throws: CredentialStoreError.ioFailure("the store location is not a directory")) {
            try await store.save(StoreFixtures.record())
        }
        #expect(try Files.bytes(directory.storePath) == [1, 2, 3])
    }

    @Test func symbolicLinkInPlaceOfTheRecordIsNotFollowed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.record())
        let elsewhere = directory.path + "/elsewhere"
        try Files.write(try Files.bytes(directory.storePath + "/credentials"), to: elsewhere)
        unlink(directory.storePath + "/credentials")
        symlink(elsewhere, directory.storePath + "/credentials")
        await #expect(throws: CredentialStoreError.self) { try await store.load() }
    }

    // MARK: Damaged files

    enum Damage: String, CaseIterable, Sendable {
        case truncatedHeader, truncatedPayload, truncatedDigest, zeroed, empty, garbage, flippedPayloadByte, appended
    }

    @Test(arguments: Damage.allCases)
    func damagedRecordFileIsCorruptedAndLeftUntouched(damage: Damage) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        let path = directory.storePath + "/credentials"
        let damaged = Self.apply(damage, to: try Files.bytes(path))
        try Files.write(damaged, to: path)

        await #expect(throws: Corrupted.self) {
            try await Corrupted.checkAsync { try await store.load() }
        }
        // Reading never repairs or removes evidence, and the other namespace is unaffected.
        #expect(try Files.bytes(path) == damaged)
        #expect(try await store.loadDevice() == StoreFixtures.device)
        // Saving a record is the app's explicit way out.
        try await store.save(StoreFixtures.record(rotation: 9))
        #expect(try await store.load() == StoreFixtures.record(rotation: 9))
    }

    @Test(arguments: Damage.allCases)
    func damagedDeviceFileIsCorrupted(damage: Damage) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        let path = directory.storePath + "/device"
        try Files.write(Self.apply(damage, to: try Files.bytes(path)), to: path)
        await #expect(throws: Corrupted.self) {
            try await Corrupted.checkAsync { try await store.loadDevice() }
        }
        #expect(try await store.load() == StoreFixtures.fullRecord)
    }

    @Test func recordFromANewerSchemaIsReportedAndKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.record())
        let path = directory.storePath + "/credentials"
        let supported = CredentialRecord.currentSchemaVersion
        let newer = StoreEnvelope.seal(Array(#"{"later":true}"#.utf8), kind: .credentials, schemaVersion: supported + 1)
        try Files.write(newer, to: path)
        await #expect(throws: CredentialStoreError.unsupportedSchemaVersion(found: supported + 1, supported: supported)) {
            try await store.load()
        }
        #expect(try Files.bytes(path) == newer)
    }

    @Test func oversizedFileIsCorruptedWithoutReadingItAll() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.record())
        let path = directory.storePath + "/credentials"
        #expect(truncate(path, off_t(StoreDirectory.maximumFileSize + 1)) == 0)
        await #expect(throws: Corrupted.self) {
            try await Corrupted.checkAsync { try await store.load() }
        }
    }

    // MARK: Abandoned temporary files

    @Test func abandonedTemporaryFilesAreRemovedButLockedOnesKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.record())
        let abandoned = directory.storePath + "/.credentials.00000000deadbeef.tmp"
        let live = directory.storePath + "/.device.00000000feedface.tmp"
        let unrelated = directory.storePath + "/.notes.0000000000000001.tmp"
        for path in [abandoned, live, unrelated] { try Files.write(Array("secret".utf8), to: path) }
        // A writer in another process holds the lock on its temporary file until it renames it.
        let liveDescriptor = open(live, O_RDONLY)
        defer { close(liveDescriptor) }
        #expect(flock(liveDescriptor, LOCK_EX) == 0)

        try await store.save(StoreFixtures.record(rotation: 2))
        #expect(!Files.exists(abandoned))
        #expect(Files.exists(live))
        #expect(Files.exists(unrelated))
        #expect(try await store.load() == StoreFixtures.record(rotation: 2))
    }

    // MARK: Helpers

    static func apply(_ damage: Damage, to bytes: [UInt8]) -> [UInt8] {
        switch damage {
        case .truncatedHeader: return Array(bytes.prefix(10))
        case .truncatedPayload: return Array(bytes.prefix(bytes.count / 2))
        case .truncatedDigest: return Array(bytes.dropLast(5))
        case .zeroed: return [UInt8](repeating: 0, count: bytes.count)
        case .empty: return []
        case .garbage:
            var generator = SplitMix64(seed: 42)
            return (0..<bytes.count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        case .flippedPayloadByte:
            var copy = bytes
            copy[StoreEnvelope.headerSize + 3] ^= 0x20
            return copy
        case .appended: return bytes + Array("\n".utf8)
        }
    }
}
