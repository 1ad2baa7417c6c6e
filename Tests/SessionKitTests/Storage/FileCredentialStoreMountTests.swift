#if os(Linux)
    import Foundation
    import Glibc
    import Testing

    @testable import SessionKit

    /// Real bad storage: a full tmpfs and a read-only bind mount.
    ///
    /// Mounting needs root (CAP_SYS_ADMIN); where it is not allowed these tests are skipped and the
    /// same failures are covered by injected errors in `FileCredentialStoreFailureTests`. Permission
    /// bits cannot stand in for a read-only volume here: root ignores them.
    @Suite("File credential store on bad storage", .enabled(if: Mounts.allowed, "needs root to mount tmpfs and bind mounts"))
    struct FileCredentialStoreMountTests {
        @Test func fullDiskIsNoSpaceAndKeepsTheOldRecord() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let mountPoint = directory.path + "/tmpfs"
            try Mounts.mountTmpfs(at: mountPoint, size: "64k")
            defer { Mounts.unmount(mountPoint) }

            let store = FileCredentialStore(directory: URL(fileURLWithPath: mountPoint + "/store"))
            let before = StoreFixtures.record(rotation: 1, revocations: 3)
            try await store.save(before)
            try await store.saveDevice(StoreFixtures.device)
            try await store.withLease {}
            let filler = mountPoint + "/filler"
            let filled = try Mounts.fill(filler)
            #expect(filled > 32 << 10)

            let bigger = StoreFixtures.record(rotation: 2, revocations: 60)
            await #expect(throws: CredentialStoreError.noSpace) { try await store.save(bigger) }
            await #expect(throws: CredentialStoreError.noSpace) { try await store.save(StoreFixtures.record(rotation: 2)) }
            await #expect(throws: CredentialStoreError.noSpace) {
                try await store.saveDevice(DeviceCredential(deviceUUID: "other", deviceSecret: Secret("other")))
            }
            #expect(try await store.load() == before)
            #expect(try await store.loadDevice() == StoreFixtures.device)
            #expect(Files.names(in: mountPoint + "/store") == ["credentials", "device", "lease.lock"])
            // The lease needs no space: refreshing processes can still agree who goes first.
            #expect(try await store.withLease { "leased" } == "leased")

            unlink(filler)
            try await store.save(bigger)
            #expect(try await store.load() == bigger)
        }

        @Test func readOnlyVolumeIsPermissionDeniedAndStillReadable() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let store = FileCredentialStore(directory: directory.storeURL)
            try await store.save(StoreFixtures.fullRecord)
            try await store.saveDevice(StoreFixtures.device)
            try await store.withLease {}
            try Mounts.bindReadOnly(directory.storePath)
            defer { Mounts.unmount(directory.storePath) }

            await #expect(throws: CredentialStoreError.permissionDenied("open credentials: Read-only file system")) {
                try await store.save(StoreFixtures.record(rotation: 2))
            }
            await #expect(throws: CredentialStoreError.permissionDenied("open device: Read-only file system")) {
                try await store.saveDevice(DeviceCredential(deviceUUID: "other"))
            }
            await #expect(throws: CredentialStoreError.permissionDenied("unlink device: Read-only file system")) {
                try await store.removeDevice()
            }
            #expect(try await store.load() == StoreFixtures.fullRecord)
            #expect(try await store.loadDevice() == StoreFixtures.device)
            // flock needs no write access, so processes reading a read-only store still exclude each other.
            #expect(try await store.withLease { try await store.load() } == StoreFixtures.fullRecord)
        }

        @Test func readOnlyVolumeWithoutALockFileIsLeaseUnavailable() async throws {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let store = FileCredentialStore(directory: directory.storeURL)
            try await store.save(StoreFixtures.record())
            try Mounts.bindReadOnly(directory.storePath)
            defer { Mounts.unmount(directory.storePath) }

            await #expect(throws: CredentialStoreError.leaseUnavailable("open lease lock: No such file or directory")) {
                try await store.withLease {}
            }
            #expect(try await store.load() == StoreFixtures.record())
        }
    }

    enum Mounts {
        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        /// Whether this process may mount (tried once on a scratch directory).
        static let allowed: Bool = {
            guard let directory = try? TemporaryDirectory() else { return false }
            defer { directory.remove() }
            guard (try? mountTmpfs(at: directory.path + "/probe", size: "4k")) != nil else { return false }
            unmount(directory.path + "/probe")
            return true
        }()

        static func mountTmpfs(at path: String, size: String) throws {
            mkdir(path, 0o700)
            guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0700") == 0 else {
                throw Failure(description: "mount tmpfs: " + String(cString: strerror(errno)))
            }
        }

        static func bindReadOnly(_ path: String) throws {
            guard mount(path, path, nil, UInt(MS_BIND), nil) == 0 else {
                throw Failure(description: "bind mount: " + String(cString: strerror(errno)))
            }
            guard mount(nil, path, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil) == 0 else {
                let message = String(cString: strerror(errno))
                unmount(path)
                throw Failure(description: "remount read-only: " + message)
            }
        }

        static func unmount(_ path: String) {
            umount2(path, Int32(MNT_DETACH))
        }

        /// Writes zeros to a new file until the file system is full; returns the bytes written.
        static func fill(_ path: String) throws -> Int {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else { throw Failure(description: "open filler: " + String(cString: strerror(errno))) }
            defer { close(descriptor) }
            let chunk = [UInt8](repeating: 0, count: 1024)
            var total = 0
            while true {
                let count = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    total += count
                    continue
                }
                if errno == ENOSPC { return total }
                throw Failure(description: "fill: " + String(cString: strerror(errno)))
            }
        }
    }
#endif
