import Foundation
import SessionKitCore
import Testing

@testable import SessionKit

/// A session's DPoP key travels in the credential record: schema 2 when the record holds one,
/// schema 1 otherwise, and records written before still load.
@Suite("DPoP keys in the credential record")
struct DPoPKeyRecordTests {
    @Test("the checked-in schema-2 record loads with its key; the schema-1 one loads without")
    func fixturesLoad() throws {
        let two = try #require(Data(base64Encoded: StoreEnvelopeFixture.schemaTwoRecord, options: .ignoreUnknownCharacters))
        #expect(try StoredPayloadCodec.openRecord(Array(two)) == StoreFixtures.dpopRecord)
        let one = try #require(Data(base64Encoded: StoreEnvelopeFixture.schemaOneRecord, options: .ignoreUnknownCharacters))
        let record = try StoredPayloadCodec.openRecord(Array(one))
        #expect(record.session != nil)
        #expect(record.session?.dpopKey == nil)
        #expect(record.schemaVersion == 1)
    }

    @Test("the file store round-trips a record with its key, written as schema 2; an old file still loads")
    func fileStoreRoundTrip() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = FileCredentialStore(directory: directory.storeURL)
        try await store.save(StoreFixtures.dpopRecord)
        #expect(try await FileCredentialStore(directory: directory.storeURL).load() == StoreFixtures.dpopRecord)
        let file = directory.storeURL.appendingPathComponent("credentials")
        let bytes = try Data(contentsOf: file)
        #expect(Array(bytes[12..<16]) == [0, 0, 0, 2])

        let old = try #require(Data(base64Encoded: StoreEnvelopeFixture.schemaOneRecord, options: .ignoreUnknownCharacters))
        try old.write(to: file)
        #expect(try await store.load() == StoreFixtures.fullRecord)
    }

    @Test("a build that reads only schema 1 refuses a record with a key rather than drop it")
    func olderBuildsRefuse() throws {
        let bytes = try StoredPayloadCodec.seal(StoreFixtures.dpopRecord)
        #expect(throws: CredentialStoreError.unsupportedSchemaVersion(found: 2, supported: 1)) {
            _ = try StoreEnvelope.open(bytes, kind: .credentials, supportedVersion: 1)
        }
    }

    @Test("no rendering of a stored key shows its scalar or reference")
    func renderings() {
        let key = StoreFixtures.dpopRecord.session!.dpopKey!
        for text in [String(describing: key), String(reflecting: key), String(describing: Mirror(reflecting: key).children.map(\.value))] {
            #expect(!text.contains("scalar-value"))
        }
    }
}
