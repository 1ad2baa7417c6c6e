import Foundation
import SessionKit
import Testing

@testable import SessionKitHandoffs

/// The JSON the Apple adapter hands the decoder, checked on Linux: `Codable` types shaped like
/// Apple's `ASExportedCredentialData` (dates as `Date`, identifiers and keys as `Data`), encoded
/// with the adapter's encoder.
@Suite struct CXFJSONEncodingTests {
    struct Version: Codable { var major: Int, minor: Int }
    struct Passkey: Codable {
        var type = "passkey"
        var credentialId: Data, rpId: String, username: String, userDisplayName: String, userHandle: Data, key: Data
    }
    struct Item: Codable { var id: Data, creationAt: Date?, modifiedAt: Date?, title: String, credentials: [Passkey] }
    struct Account: Codable { var id: Data, username: String, email: String, collections: [Int] = [], items: [Item] }
    struct Export: Codable {
        var version = Version(major: 1, minor: 0)
        var exporterRpId = "exporter.example", exporterDisplayName = "Exporter"
        var timestamp: Date, accounts: [Account]
    }

    private static let export = Export(
        timestamp: Date(timeIntervalSince1970: 1_767_225_600),
        accounts: [
            Account(
                id: Data([0xFB, 0xFF]), username: "jane", email: "jane@example.com",
                items: [
                    Item(
                        id: Data([1, 2, 3, 4]), creationAt: Date(timeIntervalSince1970: 946_684_800.5),
                        modifiedAt: Date(timeIntervalSince1970: 1_767_225_600), title: "Passkey",
                        credentials: [
                            Passkey(
                                credentialId: Data([0xFF, 0xEE]), rpId: "example.com", username: "jane", userDisplayName: "Jane",
                                userHandle: Data([7]), key: Data("pkcs8".utf8))
                        ])
                ])
        ])

    @Test func datesAreUNIXSecondsAndDataIsUnpaddedBase64URL() throws {
        let json = String(decoding: try CXFJSONEncoding.makeEncoder().encode(Self.export), as: UTF8.self)
        #expect(
            json
                == #"{"accounts":[{"collections":[],"email":"jane@example.com","id":"-_8","items":[{"creationAt":946684800.5,"#
                + #""credentials":[{"credentialId":"_-4","key":"cGtjczg","rpId":"example.com","type":"passkey","userDisplayName":"Jane","#
                + #""userHandle":"Bw","username":"jane"}],"id":"AQIDBA","modifiedAt":1767225600,"title":"Passkey"}],"username":"jane"}],"#
                + #""exporterDisplayName":"Exporter","exporterRpId":"exporter.example","timestamp":1767225600,"#
                + #""version":{"major":1,"minor":0}}"#)
    }

    @Test func theEncodedExportDecodesToTheSameDatesAndBytes() throws {
        let document = try CXFDocument.decode(Array(try CXFJSONEncoding.makeEncoder().encode(Self.export)))
        #expect(document.timestamp == Self.export.timestamp)
        let item = document.accounts[0].items[0]
        // A pre-2001, fractional date survives; the fraction is the one noted leniency.
        #expect(item.createdAt == Date(timeIntervalSince1970: 946_684_800.5))
        #expect(item.modifiedAt == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(document.leniencies == [CXFLeniency(kind: .fractionalTimestamp, path: "accounts[0].items[0].creationAt")])
        guard case .passkey(let passkey) = item.credentials.first else {
            Issue.record("the passkey did not decode")
            return
        }
        #expect(passkey.credentialID == "_-4" && passkey.userHandle == "Bw" && passkey.key.value == "cGtjczg")
    }

    @Test func aPlainEncoderWouldHaveShiftedEveryDateBy31Years() throws {
        // What the adapter did before: seconds since 2001, padded standard base64.
        let document = try CXFDocument.decode(Array(try JSONEncoder().encode(Self.export)))
        let shift = Date(timeIntervalSince1970: 1_767_225_600).timeIntervalSince(document.timestamp ?? .distantPast)
        #expect(shift == Date.timeIntervalBetween1970AndReferenceDate)
        // Its pre-2001 date is negative since 2001, so not a UNIX time at all.
        #expect(document.accounts[0].undecodable.map(\.problem) == [.invalidValue("accounts[0].items[0].creationAt")])
        #expect(document.leniencies.contains { $0.kind == .standardBase64 || $0.kind == .paddedBase64URL })
    }
}
