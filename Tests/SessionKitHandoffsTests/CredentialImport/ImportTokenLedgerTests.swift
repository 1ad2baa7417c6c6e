import Foundation
import SessionKit
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct ImportTokenLedgerTests {
    private static func token(_ number: Int) -> CredentialImportToken {
        CredentialImportToken(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))!)
    }

    private static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        return url
    }

    @Test func aTokenIsMarkedOnce() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FileImportTokenLedger(directory: directory)
        #expect(try await !ledger.contains(Self.token(1)))
        #expect(try await ledger.markUsed(Self.token(1)))
        #expect(try await !ledger.markUsed(Self.token(1)))
        #expect(try await ledger.contains(Self.token(1)))
        #expect(try await !ledger.contains(Self.token(2)))
    }

    @Test func theRecordSurvivesARelaunch() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try await FileImportTokenLedger(directory: directory).markUsed(Self.token(7)))
        let relaunched = FileImportTokenLedger(directory: directory)
        #expect(try await relaunched.contains(Self.token(7)))
        #expect(try await !relaunched.markUsed(Self.token(7)))
    }

    @Test func itLivesBesideTheCredentialStoreWithoutTouchingIt() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCredentialStore(directory: directory)
        try await store.save(CredentialRecord(pendingOperation: .signOut))
        let ledger = FileImportTokenLedger(besides: store)
        #expect(try await ledger.markUsed(Self.token(1)))
        #expect(try await store.load() == CredentialRecord(pendingOperation: .signOut))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["credentials", "import-tokens"])
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("import-tokens").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func theFileHoldsDigestsNotTokens() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await FileImportTokenLedger(directory: directory).markUsed(Fixtures.token)
        let bytes = try Data(contentsOf: directory.appendingPathComponent("import-tokens"))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.contains(Fixtures.tokenText))
        #expect(!text.contains(Fixtures.tokenText.lowercased()))
        #expect(text.contains(Fixtures.token.ledgerDigest))
    }

    @Test func itIsBoundedAndForgetsTheOldestFirst() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FileImportTokenLedger(directory: directory, capacity: 3)
        for number in 1...5 { #expect(try await ledger.markUsed(Self.token(number))) }
        #expect(try await !ledger.contains(Self.token(1)))
        #expect(try await !ledger.contains(Self.token(2)))
        for number in 3...5 { #expect(try await ledger.contains(Self.token(number))) }
        let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("import-tokens").path)[.size]
        #expect(((size as? NSNumber)?.intValue ?? .max) < 400)
    }

    @Test func aDamagedFileIsATypedErrorNotAnEmptyLedger() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ledger = FileImportTokenLedger(directory: directory)
        _ = try await ledger.markUsed(Self.token(1))
        let file = directory.appendingPathComponent("import-tokens")
        var bytes = try Data(contentsOf: file)
        bytes[30] ^= 0xFF
        try bytes.write(to: file)
        await #expect(throws: CredentialStoreError.corrupted("the import token ledger file fails its checksum")) {
            try await ledger.markUsed(Self.token(1))
        }
        // A credential record copied over it is recognised as the wrong kind.
        let record = try await {
            let store = FileCredentialStore(directory: directory.appendingPathComponent("other"))
            try await store.save(CredentialRecord())
            return try Data(contentsOf: directory.appendingPathComponent("other/credentials"))
        }()
        try record.write(to: file)
        await #expect(throws: CredentialStoreError.corrupted("the import token ledger file holds a different kind of record")) {
            try await ledger.contains(Self.token(1))
        }
    }

    @Test func aNewerSchemaIsReportedAsSuch() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let sealed = StoreEnvelope.seal(Array(#"{"tokens":[]}"#.utf8), kind: .importLedger, schemaVersion: 2)
        try Data(sealed).write(to: directory.appendingPathComponent("import-tokens"))
        await #expect(throws: CredentialStoreError.unsupportedSchemaVersion(found: 2, supported: 1)) {
            try await FileImportTokenLedger(directory: directory).contains(Self.token(1))
        }
    }

    @Test func aPayloadOfTheWrongShapeIsCorrupted() throws {
        for payload in [#"{"tokens":"x"}"#, #"{"tokens":[1]}"#, #"{"tokens":["short"]}"#, "[]", #"{"other":[]}"#] {
            let sealed = StoreEnvelope.seal(Array(payload.utf8), kind: .importLedger, schemaVersion: 1)
            #expect(throws: CredentialStoreError.corrupted("the import token ledger payload does not match its schema")) {
                try ImportTokenLedgerRecord.open(sealed)
            }
        }
    }

    @Test func aRecordRoundTrips() throws {
        var record = ImportTokenLedgerRecord()
        let inserted = [1, 2, 2].map { record.insert(Self.token($0).ledgerDigest, capacity: 2) }
        #expect(inserted == [true, true, false])
        #expect(try ImportTokenLedgerRecord.open(record.sealed()) == record)
    }

    @Test func digestsAreStableAndCaseInsensitive() {
        let lower = CredentialImportToken(uuidString: Fixtures.tokenText.lowercased())!
        #expect(lower.ledgerDigest == Fixtures.token.ledgerDigest)
        #expect(Fixtures.token.ledgerDigest.count == 64)
        #expect(Self.token(1).ledgerDigest != Self.token(2).ledgerDigest)
    }

    @Test func theInMemoryLedgerBehavesTheSameAndCanFail() async throws {
        let ledger = InMemoryImportTokenLedger(capacity: 2)
        #expect(try await ledger.markUsed(Self.token(1)))
        #expect(try await !ledger.markUsed(Self.token(1)))
        _ = try await ledger.markUsed(Self.token(2))
        _ = try await ledger.markUsed(Self.token(3))
        #expect(try await !ledger.contains(Self.token(1)))
        #expect(ledger.count == 2)
        ledger.failNext(with: .noSpace)
        await #expect(throws: CredentialStoreError.noSpace) { try await ledger.markUsed(Self.token(4)) }
        #expect(try await ledger.markUsed(Self.token(4)))
        #expect(ledger.markCount == 6)
    }
}
