import Foundation
import Testing

@testable import SessionKit

@Suite("Store envelope")
struct StoreEnvelopeTests {
    let sealed: [UInt8]

    init() throws {
        sealed = try StoredPayloadCodec.seal(StoreFixtures.fullRecord)
    }

    @Test func roundTripKeepsEveryField() throws {
        #expect(try StoredPayloadCodec.openRecord(sealed) == StoreFixtures.fullRecord)
        let device = try StoredPayloadCodec.seal(StoreFixtures.device)
        #expect(try StoredPayloadCodec.openDevice(device) == StoreFixtures.device)
    }

    @Test func frameStartsWithSignatureKindAndVersion() {
        #expect(Array(sealed[0..<8]) == [0x89, 0x53, 0x4B, 0x53, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(String(decoding: sealed[8..<12], as: UTF8.self) == "CRED")
        #expect(Array(sealed[12..<16]) == [0, 0, 0, 1])
        #expect(sealed.count == StoreEnvelope.headerSize + payloadLength(sealed) + StoreEnvelope.digestSize)
    }

    @Test func everyTruncationIsCorrupted() {
        for length in 0..<sealed.count {
            #expect(throws: Corrupted.self, "length \(length)") {
                try Corrupted.check { try StoredPayloadCodec.openRecord(Array(sealed.prefix(length))) }
            }
        }
    }

    @Test(arguments: [1, 16, 55, 56, 300, 4096])
    func zeroedFileIsCorrupted(length: Int) {
        #expect(throws: Corrupted.self) {
            try Corrupted.check { try StoredPayloadCodec.openRecord([UInt8](repeating: 0, count: length)) }
        }
    }

    @Test func zeroedFileSaysSo() {
        let zeroed = [UInt8](repeating: 0, count: sealed.count)
        #expect(throws: CredentialStoreError.corrupted("the credential record file is zeroed")) {
            try StoredPayloadCodec.openRecord(zeroed)
        }
    }

    @Test func randomGarbageIsCorrupted() {
        var generator = SplitMix64(seed: 0x5E55_1011)
        for round in 0..<500 {
            let length = Int(generator.next() % 600)
            var garbage = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            // Half the rounds keep a valid signature so the later checks are exercised too.
            if round.isMultiple(of: 2) && length >= 24 {
                garbage.replaceSubrange(0..<12, with: sealed[0..<12])
            }
            #expect(throws: Corrupted.self, "round \(round)") {
                try Corrupted.check { try StoredPayloadCodec.openRecord(garbage) }
            }
        }
    }

    @Test func everySingleBitFlipIsCorrupted() {
        for index in sealed.indices {
            for bit in 0..<8 {
                var damaged = sealed
                damaged[index] ^= 1 << bit
                #expect(throws: Corrupted.self, "byte \(index) bit \(bit)") {
                    try Corrupted.check { try StoredPayloadCodec.openRecord(damaged) }
                }
            }
        }
    }

    @Test func trailingBytesAreCorrupted() {
        #expect(throws: Corrupted.self) {
            try Corrupted.check { try StoredPayloadCodec.openRecord(sealed + [0]) }
        }
    }

    @Test func newerSchemaIsReportedAsSuch() throws {
        let payload = Array(sealed[StoreEnvelope.headerSize..<(sealed.count - StoreEnvelope.digestSize)])
        let newer = StoreEnvelope.seal(payload, kind: .credentials, schemaVersion: CredentialRecord.currentSchemaVersion + 1)
        let supported = CredentialRecord.currentSchemaVersion
        #expect(throws: CredentialStoreError.unsupportedSchemaVersion(found: supported + 1, supported: supported)) {
            try StoredPayloadCodec.openRecord(newer)
        }
        // A newer build may change the payload completely; the version is still reported.
        let alien = StoreEnvelope.seal(Array("not json at all".utf8), kind: .credentials, schemaVersion: 9)
        #expect(throws: CredentialStoreError.unsupportedSchemaVersion(found: 9, supported: supported)) {
            try StoredPayloadCodec.openRecord(alien)
        }
    }

    @Test func versionZeroIsCorrupted() {
        let zero = StoreEnvelope.seal(Array("{}".utf8), kind: .credentials, schemaVersion: 0)
        #expect(throws: Corrupted.self) { try Corrupted.check { try StoredPayloadCodec.openRecord(zero) } }
    }

    @Test func deviceFrameIsNotACredentialRecord() throws {
        let device = try StoredPayloadCodec.seal(StoreFixtures.device)
        #expect(throws: CredentialStoreError.corrupted("the credential record file holds a different kind of record")) {
            try StoredPayloadCodec.openRecord(device)
        }
        #expect(throws: Corrupted.self) { try Corrupted.check { try StoredPayloadCodec.openDevice(sealed) } }
    }

    @Test func intactFrameWithForeignPayloadIsCorrupted() {
        let foreign = StoreEnvelope.seal(Array(#"{"session":42}"#.utf8), kind: .credentials, schemaVersion: 1)
        #expect(throws: CredentialStoreError.corrupted("the credential record payload does not match its schema")) {
            try StoredPayloadCodec.openRecord(foreign)
        }
    }

    @Test func errorsNeverQuoteTheContent() {
        var damaged = sealed
        damaged[damaged.count - 1] ^= 0xFF
        do {
            _ = try StoredPayloadCodec.openRecord(damaged)
            Issue.record("damaged frame was accepted")
        } catch {
            let text = "\(error) \(String(reflecting: error))"
            for secret in StoreFixtures.secretValues { #expect(!text.contains(secret)) }
        }
    }

    /// The checked-in schema-1 bytes: this build must read them and write exactly them again.
    /// A change to the record types that breaks existing stores fails here.
    @Test func schemaOneFixtureStillDecodesAndEncodesIdentically() throws {
        let fixture = try #require(Data(base64Encoded: StoreEnvelopeFixture.schemaOneRecord, options: .ignoreUnknownCharacters))
        #expect(try StoredPayloadCodec.openRecord(Array(fixture)) == StoreFixtures.fullRecord)
        #expect(sealed == Array(fixture))
        let older = try #require(
            Data(base64Encoded: StoreEnvelopeFixture.schemaOneRecordBeforeAccountClaims, options: .ignoreUnknownCharacters))
        var withoutClaims = StoreFixtures.fullRecord
        withoutClaims.session?.canonicalSubject = nil
        withoutClaims.session?.linkedSubjects = nil
        withoutClaims.session?.isAnonymous = nil
        #expect(try StoredPayloadCodec.openRecord(Array(older)) == withoutClaims)
        let device = try #require(Data(base64Encoded: StoreEnvelopeFixture.schemaOneDevice, options: .ignoreUnknownCharacters))
        #expect(try StoredPayloadCodec.openDevice(Array(device)) == StoreFixtures.device)
    }

    private func payloadLength(_ bytes: [UInt8]) -> Int {
        Int(bytes[16..<24].reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
    }
}

/// Matches only ``CredentialStoreError/corrupted(_:)``, whatever its message.
struct Corrupted: Error {
    static func check(_ body: () throws -> some Any) throws {
        do {
            _ = try body()
        } catch CredentialStoreError.corrupted {
            throw Corrupted()
        }
    }

    static func checkAsync(_ body: () async throws -> some Any) async throws {
        do {
            _ = try await body()
        } catch CredentialStoreError.corrupted {
            throw Corrupted()
        }
    }
}

/// A small deterministic generator, so failures reproduce.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
