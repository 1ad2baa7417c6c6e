import Foundation
import Testing

@testable import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Write and read failures injected at single system calls: each gives its typed error and loses
/// nothing that was durable.
@Suite("File credential store failures")
struct FileCredentialStoreFailureTests {
    /// A store with a durable `before` record and device, whose file system fails on request.
    struct Fixture {
        let directory: TemporaryDirectory
        let fileSystem: FaultyFileSystem
        let store: FileCredentialStore
        let before = StoreFixtures.record(rotation: 1, revocations: 2)
        let after = StoreFixtures.fullRecord

        init(_ directory: TemporaryDirectory) async throws {
            self.directory = directory
            fileSystem = FaultyFileSystem(directory: directory.storePath)
            store = FileCredentialStore(directory: directory.storeURL, fileSystem: fileSystem)
            try await store.save(before)
            try await store.saveDevice(StoreFixtures.device)
        }

        /// Only the store's own files: no temporary file was left behind.
        var names: Set<String> { Files.names(in: directory.storePath) }

        func expectIntact(_ comment: Comment? = nil) async throws {
            #expect(fileSystem.pendingFaults == 0, comment)
            #expect(try await store.load() == before, comment)
            #expect(try await store.loadDevice() == StoreFixtures.device, comment)
            #expect(names == ["credentials", "device"], comment)
        }
    }

    /// Every step of the atomic replace, up to and including the rename.
    static let replaceSteps: [FaultyFileSystem.Call] = [.open, .lock, .status, .changeMode, .write, .synchronize, .rename]

    @Test(arguments: replaceSteps)
    func fullDiskAtAnyStepBeforeTheRenameKeepsTheOldRecord(step: FaultyFileSystem.Call) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(step, .file("credentials"), with: ENOSPC)
        await #expect(throws: CredentialStoreError.noSpace) { try await fixture.store.save(fixture.after) }
        try await fixture.expectIntact("step \(step)")
        // Once space is back the same save goes through.
        try await fixture.store.save(fixture.after)
        #expect(try await fixture.store.load() == fixture.after)
    }

    @Test func quotaExceededIsNoSpace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.write, .file("credentials"), with: EDQUOT)
        await #expect(throws: CredentialStoreError.noSpace) { try await fixture.store.save(fixture.after) }
        try await fixture.expectIntact()
    }

    @Test(arguments: [EROFS, EACCES, EPERM])
    func deniedWriteIsPermissionDeniedAndKeepsTheOldRecord(code: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.open, .file("credentials"), with: code)
        let expected = CredentialStoreError.permissionDenied("open credentials: " + String(cString: strerror(code)))
        await #expect(throws: expected) { try await fixture.store.save(fixture.after) }
        try await fixture.expectIntact()
    }

    @Test func deniedRenameIsPermissionDenied() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.rename, .file("credentials"), with: EROFS)
        await #expect(throws: CredentialStoreError.permissionDenied("rename credentials: Read-only file system")) {
            try await fixture.store.save(fixture.after)
        }
        try await fixture.expectIntact()
    }

    @Test func otherFailuresAreIOFailuresWithTheSystemMessageOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.synchronize, .file("credentials"), with: EIO)
        do throws(CredentialStoreError) {
            try await fixture.store.save(fixture.after)
            Issue.record("save succeeded despite the failed fsync")
        } catch {
            #expect(error == .ioFailure("synchronize credentials: Input/output error"))
            let text = "\(error)"
            for secret in StoreFixtures.secretValues { #expect(!text.contains(secret)) }
        }
        try await fixture.expectIntact()
    }

    @Test func shortWritesAreCompleted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.limitWrites(to: 7)
        try await fixture.store.save(fixture.after)
        #expect(try await fixture.store.load() == fixture.after)
        #expect(fixture.fileSystem.count(of: .write) > 20)
    }

    @Test func writeThatMakesNoProgressFails() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.limitWrites(to: 0)
        await #expect(throws: CredentialStoreError.ioFailure("write credentials: Input/output error")) {
            try await fixture.store.save(fixture.after)
        }
        fixture.fileSystem.limitWrites(to: nil)
        try await fixture.expectIntact()
    }

    @Test func failedDirectorySyncAfterTheRenameIsReported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.synchronize, .directory, with: EIO)
        await #expect(throws: CredentialStoreError.ioFailure("synchronize store directory: Input/output error")) {
            try await fixture.store.save(fixture.after)
        }
        #expect(fixture.fileSystem.pendingFaults == 0)
        // The rename happened, so the new record is what a reader sees; only its durability
        // across a power loss was not confirmed, and the caller was told.
        #expect(try await fixture.store.load() == fixture.after)
    }

    @Test func fileSystemsThatCannotSyncDirectoriesAreAccepted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.synchronize, .directory, with: EINVAL)
        try await fixture.store.save(fixture.after)
        #expect(fixture.fileSystem.pendingFaults == 0)
        #expect(try await fixture.store.load() == fixture.after)
    }

    @Test func failedDeviceSaveKeepsBothNamespaces() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.write, .file("device"), with: ENOSPC)
        await #expect(throws: CredentialStoreError.noSpace) {
            try await fixture.store.saveDevice(DeviceCredential(deviceUUID: "other", deviceSecret: Secret("other")))
        }
        try await fixture.expectIntact()
    }

    @Test func failedDeviceRemovalKeepsTheDevice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.unlink, .file("device"), with: EROFS)
        await #expect(throws: CredentialStoreError.permissionDenied("unlink device: Read-only file system")) {
            try await fixture.store.removeDevice()
        }
        try await fixture.expectIntact()
    }

    @Test func readFailuresAreTypedAndDoNotLookSignedOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        fixture.fileSystem.fail(.read, .file("credentials"), with: EIO)
        await #expect(throws: CredentialStoreError.ioFailure("read credentials: Input/output error")) {
            try await fixture.store.load()
        }
        fixture.fileSystem.fail(.open, .file("credentials"), with: EACCES)
        await #expect(throws: CredentialStoreError.permissionDenied("open credentials: Permission denied")) {
            try await fixture.store.load()
        }
        fixture.fileSystem.fail(.open, .file("device"), with: EACCES)
        await #expect(throws: CredentialStoreError.permissionDenied("open device: Permission denied")) {
            try await fixture.store.loadDevice()
        }
        try await fixture.expectIntact()
    }

    @Test func uncreatableDirectoryIsPermissionDenied() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultyFileSystem()
        let store = FileCredentialStore(directory: directory.storeURL, fileSystem: fileSystem)
        fileSystem.fail(.makeDirectory, with: EACCES)
        await #expect(throws: CredentialStoreError.permissionDenied("makeDirectory store directory: Permission denied")) {
            try await store.save(StoreFixtures.record())
        }
        #expect(fileSystem.pendingFaults == 0)
        #expect(try await store.load() == CredentialRecord())
    }

    @Test func temporaryFileRemovedByAnotherProcessBeforeItWasLockedIsRetried() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try await Fixture(directory)
        // As if a cleaner had locked the fresh temporary file first.
        fixture.fileSystem.fail(.lock, .file("credentials"), with: EWOULDBLOCK)
        try await fixture.store.save(fixture.after)
        #expect(fixture.fileSystem.pendingFaults == 0)
        #expect(try await fixture.store.load() == fixture.after)
        #expect(fixture.names == ["credentials", "device"])
    }
}
