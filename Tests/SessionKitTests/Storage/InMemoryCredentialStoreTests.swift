import SessionKit
import SessionKitTesting
import Testing

@Suite("In-memory credential store")
struct InMemoryCredentialStoreTests {
    @Test func injectedSaveFailuresKeepTheOldRecordAndAreCounted() async throws {
        let store = InMemoryCredentialStore(record: StoreFixtures.record(rotation: 1))
        store.failNextSaves(2, with: .noSpace)
        await #expect(throws: CredentialStoreError.noSpace) { try await store.save(StoreFixtures.record(rotation: 2)) }
        await #expect(throws: CredentialStoreError.noSpace) { try await store.save(StoreFixtures.record(rotation: 2)) }
        #expect(store.record == StoreFixtures.record(rotation: 1))
        try await store.save(StoreFixtures.record(rotation: 2))
        #expect(store.record == StoreFixtures.record(rotation: 2))
        #expect(store.saveCount == 3)
    }

    @Test func failuresQueuePerOperation() async throws {
        let store = InMemoryCredentialStore(device: StoreFixtures.device)
        store.failNext(.load, with: .corrupted("test"))
        store.failNext(.load, with: .ioFailure("second"))
        store.failNext(.removeDevice, with: .permissionDenied("locked"))
        await #expect(throws: CredentialStoreError.corrupted("test")) { try await store.load() }
        await #expect(throws: CredentialStoreError.ioFailure("second")) { try await store.load() }
        #expect(try await store.load().isEmpty)
        await #expect(throws: CredentialStoreError.permissionDenied("locked")) { try await store.removeDevice() }
        #expect(store.device == StoreFixtures.device)
        try await store.removeDevice()
        #expect(store.device == nil)
        #expect(store.count(of: .load) == 3)
        #expect(store.count(of: .removeDevice) == 2)
        #expect(store.count(of: .save) == 0)
    }

    @Test func zeroFailuresInjectNothing() async throws {
        let store = InMemoryCredentialStore()
        store.failNextSaves(0, with: .noSpace)
        try await store.save(StoreFixtures.record())
        #expect(store.record == StoreFixtures.record())
    }

    @Test func directReplacementPlaysAnotherProcess() async throws {
        let store = InMemoryCredentialStore()
        store.replaceRecord(StoreFixtures.fullRecord)
        store.replaceDevice(StoreFixtures.device)
        #expect(try await store.load() == StoreFixtures.fullRecord)
        #expect(try await store.loadDevice() == StoreFixtures.device)
        #expect(store.saveCount == 0)
        #expect(store.count(of: .saveDevice) == 0)
    }

    @Test func leaseIsCountedAndObservable() async throws {
        let store = InMemoryCredentialStore()
        #expect(!store.isLeaseHeld)
        let heldInside = try await store.withLease { store.isLeaseHeld }
        #expect(heldInside)
        #expect(!store.isLeaseHeld)
        #expect(store.leaseCount == 1)
    }
}

/// Behaviour every store shares, checked on each of them.
@Suite("Credential store contract")
struct CredentialStoreContractTests {
    enum Kind: String, CaseIterable, Sendable {
        case memory, file
    }

    final class Subject: Sendable {
        let store: any CredentialStore & DeviceCredentialStore
        private let directory: TemporaryDirectory?

        init(_ kind: Kind) throws {
            switch kind {
            case .memory:
                store = InMemoryCredentialStore()
                directory = nil
            case .file:
                let directory = try TemporaryDirectory()
                store = FileCredentialStore(directory: directory.storeURL)
                self.directory = directory
            }
        }

        func remove() {
            directory?.remove()
        }
    }

    @Test(arguments: Kind.allCases)
    func startsEmptyAndRoundTrips(kind: Kind) async throws {
        let subject = try Subject(kind)
        defer { subject.remove() }
        let store = subject.store
        #expect(try await store.load() == CredentialRecord())
        #expect(try await store.loadDevice() == nil)
        try await store.save(StoreFixtures.fullRecord)
        try await store.saveDevice(StoreFixtures.device)
        #expect(try await store.load() == StoreFixtures.fullRecord)
        #expect(try await store.loadDevice() == StoreFixtures.device)
        try await store.removeDevice()
        #expect(try await store.loadDevice() == nil)
        #expect(try await store.load() == StoreFixtures.fullRecord)
    }

    @Test(arguments: Kind.allCases)
    func leaseSerializesReadModifyWrite(kind: Kind) async throws {
        let subject = try Subject(kind)
        defer { subject.remove() }
        let store = subject.store
        let meter = OccupancyMeter()
        let contenders = LeaseContenders()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<30 {
                group.addTask {
                    contenders.arrive()
                    try await store.withLease {
                        meter.enter()
                        defer { meter.leave() }
                        let rotation = try await store.load().session?.rotation ?? 0
                        // Between the read and the write, every other task is asking for the lease.
                        await contenders.waitForAll(30)
                        try await store.save(StoreFixtures.record(rotation: rotation + 1))
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(meter.maximum == 1)
        #expect(try await store.load().session?.rotation == 30)
    }

    @Test(arguments: Kind.allCases)
    func nestedLeaseRunsDirectly(kind: Kind) async throws {
        let subject = try Subject(kind)
        defer { subject.remove() }
        let store = subject.store
        let value = try await store.withLease {
            try await store.withLease {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    // Child tasks of the holder share its lease.
                    group.addTask { try await store.withLease { 20 } }
                    group.addTask { try await store.withLease { 22 } }
                    return try await group.reduce(0, +)
                }
            }
        }
        #expect(value == 42)
    }

    @Test(arguments: Kind.allCases)
    func cancelledWaiterDoesNotRun(kind: Kind) async throws {
        let subject = try Subject(kind)
        defer { subject.remove() }
        let store = subject.store
        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let gate = Gate()
        let holder = Task {
            try await store.withLease {
                log.record("holder")
                await gate.wait()
            }
        }
        #expect(await events.next() == "holder")
        let waiter = Task {
            try await store.withLease { log.record("waiter ran") }
        }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        gate.open()
        try await holder.value
        try await store.withLease { log.record("after") }
        #expect(await events.next() == "after")
    }
}
