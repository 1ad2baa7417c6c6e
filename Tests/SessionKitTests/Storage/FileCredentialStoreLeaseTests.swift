import Foundation
import Testing

@testable import SessionKit

/// The lease between tasks of one process.
@Suite("File credential store lease")
struct FileCredentialStoreLeaseTests {
    /// Under the lease, read-modify-write cycles never interleave: no update is lost and no two
    /// bodies overlap, although each body suspends several times.
    @Test func tasksTakeTheLeaseOneAtATime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Two store values for one directory share the lease.
        let stores = [FileCredentialStore(directory: directory.storeURL), FileCredentialStore(directory: directory.storeURL)]
        #expect(stores[0].lease === stores[1].lease)
        let meter = OccupancyMeter()
        try await Self.incrementConcurrently(stores: stores, times: 40, meter: meter)
        #expect(meter.maximum == 1)
        #expect(try await stores[0].load().session?.rotation == 40)
    }

    /// Store values with leases of their own still exclude each other through the lock file,
    /// as separate processes do; the waiting happens on a background thread.
    @Test func separateLeasesExcludeEachOtherThroughTheLockFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let stores = (0..<3).map { _ in
            FileCredentialStore(directory: directory.storeURL, fileSystem: FaultyFileSystem())
        }
        #expect(stores[0].lease !== stores[1].lease)
        let meter = OccupancyMeter()
        try await Self.incrementConcurrently(stores: stores, times: 30, meter: meter)
        #expect(meter.maximum == 1)
        #expect(try await stores[0].load().session?.rotation == 30)
    }

    @Test func waitingTaskRunsOnlyAfterTheHolderReleases() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let gate = Gate()
        let holder = Task {
            try await store.withLease {
                log.record("A in")
                await gate.wait()
                log.record("A out")
            }
        }
        #expect(await events.next() == "A in")
        let waiter = Task { try await store.withLease { log.record("B in") } }
        await waitUntil(store.lease) { store.lease.waiterCount == 1 }
        gate.open()
        try await holder.value
        try await waiter.value
        #expect(await events.next() == "A out")
        #expect(await events.next() == "B in")
        #expect(!store.lease.isHeld)
    }

    @Test func cancelledWaiterLeavesWithoutRunningItsBody() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let gate = Gate()
        let holder = Task {
            try await store.withLease {
                log.record("holder in")
                await gate.wait()
            }
        }
        #expect(await events.next() == "holder in")
        let waiter = Task { try await store.withLease { log.record("cancelled body ran") } }
        await waitUntil(store.lease) { store.lease.waiterCount == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(store.lease.waiterCount == 0)
        #expect(store.lease.isHeld)
        gate.open()
        try await holder.value
        try await store.withLease { log.record("next in") }
        #expect(await events.next() == "next in")
    }

    @Test func nestedLeaseOnTheSameDirectoryRunsDirectly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let outer = FileCredentialStore(directory: directory.storeURL)
        let inner = FileCredentialStore(directory: directory.storeURL)
        let value = try await outer.withLease {
            try await inner.withLease {
                try await outer.withLease { 42 }
            }
        }
        #expect(value == 42)
        #expect(!outer.lease.isHeld)
    }

    @Test func bodyErrorIsRethrownAndReleasesTheLease() async throws {
        struct Failure: Error {}
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        await #expect(throws: Failure.self) { try await store.withLease { throw Failure() } }
        #expect(!store.lease.isHeld)
        #expect(try await store.withLease { "again" } == "again")
    }

    /// A task started inside the body inherits the reentrant right only while the lease is held.
    @Test func unstructuredTaskOutlivingTheLeaseMustWaitForIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let escapeGate = Gate()
        let holderGate = Gate()
        let escaped = try await store.withLease {
            Task {
                await escapeGate.wait()
                try await store.withLease { log.record("escaped in") }
            }
        }
        let holder = Task {
            try await store.withLease {
                log.record("holder in")
                await holderGate.wait()
                log.record("holder out")
            }
        }
        #expect(await events.next() == "holder in")
        escapeGate.open()
        await waitUntil(store.lease) { store.lease.waiterCount == 1 }
        holderGate.open()
        try await holder.value
        try await escaped.value
        #expect(await events.next() == "holder out")
        #expect(await events.next() == "escaped in")
    }

    @Test func leaseWorksBeforeAnythingWasSaved() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.withLease {
            #expect(try await store.load().isEmpty)
            try await store.save(StoreFixtures.record())
        }
        #expect(Files.names(in: directory.storePath) == ["credentials", "lease.lock"])
    }

    @Test func unopenableLockFileIsLeaseUnavailable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultyFileSystem()
        let store = FileCredentialStore(directory: directory.storeURL, fileSystem: fileSystem)
        fileSystem.fail(.open, .file("lease.lock"), with: EMFILE)
        await #expect(throws: CredentialStoreError.leaseUnavailable("open lease lock: Too many open files")) {
            try await store.withLease {}
        }
        #expect(!store.lease.isHeld)
        try await store.withLease {}
    }

    @Test func failingLockCallIsLeaseUnavailable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fileSystem = FaultyFileSystem()
        let store = FileCredentialStore(directory: directory.storeURL, fileSystem: fileSystem)
        fileSystem.fail(.lock, .file("lease.lock"), with: ENOLCK)
        await #expect(throws: CredentialStoreError.leaseUnavailable("lock lease lock: No locks available")) {
            try await store.withLease {}
        }
        #expect(fileSystem.pendingFaults == 0)
        try await store.withLease {}
    }

    static func incrementConcurrently(stores: [FileCredentialStore], times: Int, meter: OccupancyMeter) async throws {
        let contenders = LeaseContenders()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<times {
                let store = stores[index % stores.count]
                group.addTask {
                    contenders.arrive()
                    try await store.withLease {
                        meter.enter()
                        defer { meter.leave() }
                        let rotation = try await store.load().session?.rotation ?? 0
                        // Between the read and the write, every other task is asking for the lease.
                        await contenders.waitForAll(times)
                        try await store.save(StoreFixtures.record(rotation: rotation + 1))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
