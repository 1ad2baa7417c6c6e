import Foundation
import Testing

@testable import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lease and the atomic replace between processes, with `SessionKitStoreTool` as the other
/// process. Every wait is for a line the child prints or for its exit, never for a time.
@Suite("File credential store across processes")
struct FileCredentialStoreCrossProcessTests {
    @Test func leaseHeldByAnotherProcessBlocksUntilItIsReleased() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try StoreToolProcess(tool: ["hold", directory.storePath])
        #expect(await child.waitForLine("held"))

        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let store = FileCredentialStore(
            directory: directory.storeURL, fileSystem: FaultyFileSystem(onBlockingLock: { log.record("blocked") }))
        let waiter = Task { try await store.withLease { log.record("entered") } }
        // Were the lease not exclusive, "entered" would come first.
        #expect(await events.next() == "blocked")
        child.closeInput()
        #expect(await child.waitForLine("released"))
        try await waiter.value
        #expect(await events.next() == "entered")
        await child.expectEnd(.exited(0))
    }

    @Test func leaseOfAKilledProcessIsFreed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try StoreToolProcess(tool: ["hold", directory.storePath])
        #expect(await child.waitForLine("held"))
        child.kill()
        await child.expectEnd(.killed)
        let store = FileCredentialStore(directory: directory.storeURL)
        #expect(try await store.withLease { "taken" } == "taken")
    }

    /// Four processes and this one increment one counter under the lease; a single lost update
    /// would show in the total.
    @Test func processesTakeTheLeaseOneAtATime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let processes = 4
        let rounds = 25
        let children = try (0..<processes).map { _ in
            try StoreToolProcess(tool: ["count", directory.storePath, "\(rounds)"])
        }
        let store = FileCredentialStore(directory: directory.storeURL)
        for _ in 0..<rounds {
            try await store.withLease {
                let rotation = try await store.load().session?.rotation ?? 0
                try await store.save(StoreFixtures.record(rotation: rotation + 1))
            }
        }
        for child in children {
            #expect(await child.remainingLines() == ["done"])
            await child.expectEnd(.exited(0))
        }
        #expect(try await store.load().session?.rotation == UInt64((processes + 1) * rounds))
    }

    /// A task cancelled while another process holds the lease leaves at once; the thread still
    /// blocked on the lock is adopted by the next task or gives the lock straight back.
    @Test func cancelledWaitForAnotherProcessDoesNotKeepTheLock() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try StoreToolProcess(tool: ["hold", directory.storePath])
        #expect(await first.waitForLine("held"))

        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let store = FileCredentialStore(
            directory: directory.storeURL, fileSystem: FaultyFileSystem(onBlockingLock: { log.record("blocked") }))
        let cancelled = Task { try await store.withLease { log.record("cancelled body ran") } }
        #expect(await events.next() == "blocked")
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }

        let adopter = Task { try await store.withLease { log.record("adopter in") } }
        first.closeInput()
        await first.expectEnd(.exited(0))
        try await adopter.value
        var seen: [String] = []
        while let event = await events.next() {
            if event == "blocked" { continue }
            seen.append(event)
            break
        }
        #expect(seen == ["adopter in"])

        // Nothing in this process still holds the lock.
        let second = try StoreToolProcess(tool: ["hold", directory.storePath])
        #expect(await second.waitForLine("held"))
        second.closeInput()
        await second.expectEnd(.exited(0))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/flock"), "needs flock(1) from util-linux"))
    func leaseIsAnOrdinaryFlockOnTheLockFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        let lockPath = directory.storePath + "/lease.lock"
        let flock = URL(fileURLWithPath: "/usr/bin/flock")
        try await store.withLease {
            let probe = try StoreToolProcess(executable: flock, arguments: ["--nonblock", lockPath, "true"])
            await probe.expectEnd(.exited(1))
        }
        let probe = try StoreToolProcess(executable: flock, arguments: ["--nonblock", lockPath, "true"])
        await probe.expectEnd(.exited(0))

        let holder = try StoreToolProcess(executable: flock, arguments: [lockPath, "-c", "echo held; cat"])
        #expect(await holder.waitForLine("held"))
        let log = EventLog()
        var events = log.stream.makeAsyncIterator()
        let observed = FileCredentialStore(
            directory: directory.storeURL, fileSystem: FaultyFileSystem(onBlockingLock: { log.record("blocked") }))
        let waiter = Task { try await observed.withLease { log.record("entered") } }
        #expect(await events.next() == "blocked")
        holder.closeInput()
        await holder.expectEnd(.exited(0))
        try await waiter.value
        #expect(await events.next() == "entered")
    }

    /// A writer killed at arbitrary moments: the store always reads as a whole record, never one
    /// older than the last save the writer reported as finished, and abandoned temporary files are
    /// cleaned up by the next writer.
    @Test func writerKilledMidSaveLeavesTheLastDurableRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        var generator = SplitMix64(seed: 0x6B69_6C6C)
        let kills = 25
        var lastDurable: UInt64 = 0
        for round in 0..<kills {
            let child = try StoreToolProcess(tool: ["churn", directory.storePath])
            let linesBeforeKill = 1 + Int(generator.next() % 12)
            var reported: [String] = []
            for _ in 0..<linesBeforeKill {
                if let line = await child.nextLine() { reported.append(line) }
            }
            child.kill()
            // Lines still in the pipe are saves that completed before the kill, too.
            reported += await child.remainingLines()
            await child.expectEnd(.killed)
            for line in reported {
                let parts = line.split(separator: " ")
                #expect(parts.first == "saved", "round \(round): \(line)")
                if parts.count == 2, let value = UInt64(parts[1]) { lastDurable = max(lastDurable, value) }
            }

            let record = try await store.load()
            let session = try #require(record.session, "round \(round)")
            // The kill may land after a rename and before its line was printed: one newer is fine.
            #expect(session.rotation == lastDurable || session.rotation == lastDurable + 1, "round \(round)")
            #expect(session.refreshToken?.value == "refresh-\(session.rotation)", "round \(round)")
            #expect(record.pendingRevocations.count == Int(session.rotation % 7) * 3, "round \(round)")
            if let device = try await store.loadDevice() {
                #expect(device.deviceSecret?.value.hasPrefix("secret-") == true)
            }
            lastDurable = session.rotation
        }
        try await store.save(StoreFixtures.record(rotation: lastDurable + 1))
        #expect(Files.names(in: directory.storePath).isSubset(of: ["credentials", "device"]))
    }
}
