import Foundation
import SessionKit
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

/// The ledger every keyring-like store vends (Keychain, Secret Service), over an item held in
/// memory, and the choice of ledger through ``ImportTokenLedgerProviding``.
@Suite struct StoredItemImportTokenLedgerTests {
    /// One item of a keyring, with a write count and a scripted failure.
    final class Item: Sendable {
        private let state = Locked<(bytes: [UInt8]?, writes: Int, failure: CredentialStoreError?)>((nil, 0, nil))

        var bytes: [UInt8]? {
            get { state.withLock { $0.bytes } }
            set { state.withLock { $0.bytes = newValue } }
        }
        var writes: Int { state.withLock { $0.writes } }
        func failNext(with error: CredentialStoreError) { state.withLock { $0.failure = error } }

        func ledger(capacity: Int = 256) -> StoredItemImportTokenLedger {
            StoredItemImportTokenLedger(
                capacity: capacity,
                read: { () throws(CredentialStoreError) in
                    if let failure = self.state.withLock({ state in
                        defer { state.failure = nil }
                        return state.failure
                    }) {
                        throw failure
                    }
                    return self.bytes
                },
                write: { (bytes) throws(CredentialStoreError) in self.state.withLock { $0 = (bytes, $0.writes + 1, nil) } })
        }
    }

    private static func token(_ number: Int) -> CredentialImportToken {
        CredentialImportToken(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))!)
    }

    @Test func aTokenIsMarkedOnceAndSurvivesANewLedgerOverTheSameItem() async throws {
        let item = Item()
        let ledger = item.ledger()
        #expect(try await !ledger.contains(Self.token(1)))
        #expect(try await ledger.markUsed(Self.token(1)))
        #expect(try await !ledger.markUsed(Self.token(1)))
        #expect(item.writes == 1)
        let relaunched = item.ledger()
        #expect(try await relaunched.contains(Self.token(1)))
        #expect(try await !relaunched.contains(Self.token(2)))
    }

    @Test func theItemHoldsTheFileLedgersFramedRecordOfDigests() async throws {
        let item = Item()
        _ = try await item.ledger().markUsed(Fixtures.token)
        let bytes = try #require(item.bytes)
        #expect(try ImportTokenLedgerRecord.open(bytes).digests == [Fixtures.token.ledgerDigest])
        #expect(!String(decoding: bytes, as: UTF8.self).contains(Fixtures.tokenText))
    }

    @Test func concurrentMarksOfOneLedgerAreSerialized() async throws {
        let item = Item()
        let ledger = item.ledger()
        let results = await withTaskGroup(of: Bool.self) { group in
            for number in 0..<20 { group.addTask { (try? await ledger.markUsed(Self.token(number % 5))) ?? false } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 5)
        #expect(try ImportTokenLedgerRecord.open(try #require(item.bytes)).digests.count == 5)
    }

    @Test func itIsBoundedAndADamagedItemIsATypedError() async throws {
        let item = Item()
        let ledger = item.ledger(capacity: 2)
        for number in 1...3 { _ = try await ledger.markUsed(Self.token(number)) }
        #expect(try await !ledger.contains(Self.token(1)))
        #expect(try await ledger.contains(Self.token(3)))
        item.bytes = [0, 1, 2]
        await #expect(throws: CredentialStoreError.self) { try await ledger.markUsed(Self.token(9)) }
        item.failNext(with: .permissionDenied("locked"))
        await #expect(throws: CredentialStoreError.permissionDenied("locked")) { try await ledger.contains(Self.token(3)) }
    }

    @Test func theStoresChooseTheirLedger() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        let file: any ImportTokenLedgerProviding = FileCredentialStore(directory: directory)
        let ledger = try #require(file.makeImportTokenLedger() as? FileImportTokenLedger)
        #expect(ledger.directory == directory.standardizedFileURL)
        let memory: any ImportTokenLedgerProviding = InMemoryCredentialStore()
        #expect(memory.makeImportTokenLedger() is InMemoryImportTokenLedger)
    }

    @Test func aCoordinatorImportsOnceWithTheLedgerItsStoreVends() async throws {
        let clock = TestClock()
        let exporter = SimulatedCredentialExporter(clock: clock)
        let token = exporter.offer(.serve(SimulatedCXFDocument.sample().jsonBytes()))
        let item = Item()
        let coordinator = CredentialImportCoordinator(
            importer: exporter, ledger: item.ledger(), intake: SimulatedCredentialExporter.intake, clock: clock)
        #expect(try await coordinator.importCredentials(with: token).accounts.count == 1)
        let relaunched = CredentialImportCoordinator(
            importer: exporter, ledger: item.ledger(), intake: SimulatedCredentialExporter.intake, clock: clock)
        await #expect(throws: CredentialImportError.alreadyUsed) { try await relaunched.importCredentials(with: token) }
    }
}
