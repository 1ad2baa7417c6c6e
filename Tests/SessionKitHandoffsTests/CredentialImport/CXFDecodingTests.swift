import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct CXFDecodingTests {
    private func decode(_ credentials: String, item: String = "") throws(CXFDecodingError) -> [CXFCredential] {
        try CXFDocument.decode(Fixtures.cxf(credentials: credentials, item: item)).accounts[0].items[0].credentials
    }

    @Test func decodesTheHeaderAccountAndItem() throws {
        let document = try CXFDocument.decode(
            Fixtures.cxf(
                credentials: Fixtures.basicAuth,
                item: #","subtitle":"sub","creationAt":1705142400,"modifiedAt":1705228800,"favorite":true,"tags":["work"],"#
                    + #""scope":{"urls":["https://example.com"],"androidApps":[{"bundleId":"com.example","name":"Example","#
                    + #""certificate":{"fingerprint":"AAAA","hashAlgorithm":"sha256"}}]}"#))
        #expect(document.version == .v1)
        #expect(document.exporterRelyingPartyID == "exporter.example")
        #expect(document.exporterDisplayName == "Exporter")
        #expect(document.timestamp == Date(timeIntervalSince1970: 1_705_228_800))
        let account = try #require(document.accounts.first)
        #expect(account.id == "YWNjb3VudA")
        #expect(account.username == "jane")
        #expect(account.email == "jane@example.com")
        #expect(account.fullName == nil)
        let item = try #require(account.items.first)
        #expect(item.title == "Item")
        #expect(item.subtitle == "sub")
        #expect(item.createdAt == Date(timeIntervalSince1970: 1_705_142_400))
        #expect(item.modifiedAt == Date(timeIntervalSince1970: 1_705_228_800))
        #expect(item.favorite == true)
        #expect(item.tags == ["work"])
        #expect(item.scope?.urls == ["https://example.com"])
        #expect(
            item.scope?.androidApps == [
                .init(bundleID: "com.example", name: "Example", certificateFingerprint: "AAAA", certificateHashAlgorithm: "sha256")
            ])
    }

    @Test func decodesBasicAuth() throws {
        guard case .basicAuth(let login) = try decode(Fixtures.basicAuth).first else {
            Issue.record("not basic-auth")
            return
        }
        #expect(login.username == CXFField(value: "jane", id: "dXNlcg", label: "Email"))
        #expect(login.password?.value.value == Fixtures.password)
        #expect(try decode(#"{"type":"basic-auth"}"#) == [.basicAuth(CXFBasicAuthCredential(username: nil, password: nil))])
    }

    @Test func decodesAPasskey() throws {
        guard case .passkey(let passkey) = try decode(Fixtures.passkey).first else {
            Issue.record("not a passkey")
            return
        }
        #expect(passkey.credentialID == "Y3JlZGVudGlhbA")
        #expect(passkey.relyingPartyID == "example.com")
        #expect(passkey.username == "jane")
        #expect(passkey.userDisplayName == "Jane")
        #expect(passkey.userHandle == "dXNlci1oYW5kbGU")
        #expect(passkey.key.value == Fixtures.passkeyKey)
        #expect(passkey.fido2Extensions?.value == #"{"credBlob":"YmxvYi1TRUNSRVQ"}"#)
    }

    @Test func decodesATOTP() throws {
        #expect(
            try decode(Fixtures.totp) == [
                .totp(
                    CXFTOTPCredential(
                        secret: Secret(Fixtures.totpSecret), period: 30, digits: 6, algorithm: .sha256, username: "jane", issuer: "Example")
                )
            ])
    }

    @Test func decodesANote() throws {
        #expect(try decode(Fixtures.note) == [.note(CXFNoteCredential(content: CXFField(value: Secret(Fixtures.noteText))))])
    }

    @Test func keepsUnknownTypesOpaqueAndTheRestOfTheImport() throws {
        let credentials = try decode(
            [Fixtures.creditCard, Fixtures.basicAuth, #"{"type":"x-future","anything":[1,{"a":null}]}"#].joined(separator: ","))
        #expect(credentials.map(\.type) == ["credit-card", "basic-auth", "x-future"])
        guard case .opaque(let card) = credentials[0] else {
            Issue.record("credit card not opaque")
            return
        }
        // The opaque JSON is the credential as received, compacted: nothing is lost.
        let reparsed = try JSONParser.parse(Array(card.json.value.utf8))
        #expect(reparsed == (try JSONParser.parse(Array(Fixtures.creditCard.utf8))))
    }

    @Test func aTOTPWithAnUnknownAlgorithmIsKeptOpaqueNotUsed() throws {
        let credentials = try decode(#"{"type":"totp","secret":"JBSWY3DP","period":30,"digits":6,"algorithm":"md5"}"#)
        guard case .opaque(let opaque) = credentials.first else {
            Issue.record("an unknown algorithm was accepted")
            return
        }
        #expect(opaque.type == "totp")
    }

    @Test func theSampleDocumentDecodes() throws {
        let document = try CXFDocument.decode(SimulatedCXFDocument.sample().jsonBytes())
        #expect(document.summary == CXFSummary(accounts: 1, items: 5, basicAuth: 1, passkeys: 1, totp: 1, notes: 1, opaque: 1))
        #expect("\(document.summary)" == "1 account, 5 items: 1 login, 1 passkey, 1 TOTP, 1 note, 1 opaque")
        let login = document.accounts[0].items[0]
        #expect(login.scope?.urls == ["https://example.com/login"])
        #expect(login.scope?.androidApps.map(\.bundleID) == ["com.example.android"])
    }

    // MARK: Versions

    @Test func refusesAnotherVersionBeforeReadingTheRest() {
        let future = Array(#"{"version":{"major":2,"minor":0},"whatever":true}"#.utf8)
        #expect(throws: CXFDecodingError.unsupportedVersion(found: CXFVersion(major: 2, minor: 0), supported: [.v1])) {
            try CXFDocument.decode(future)
        }
        #expect(throws: CXFDecodingError.unsupportedVersion(found: CXFVersion(major: 1, minor: 1), supported: [.v1])) {
            try CXFDocument.decode(Fixtures.cxf(credentials: Fixtures.note, version: #"{"major":1,"minor":1}"#))
        }
    }

    @Test func acceptsTheVersionsTheAppDeclares() throws {
        let document = try CXFDocument.decode(
            Fixtures.cxf(credentials: Fixtures.note, version: #"{"major":1,"minor":1}"#),
            supportedVersions: [.v1, CXFVersion(major: 1, minor: 1)])
        #expect(document.version == CXFVersion(major: 1, minor: 1))
    }

    @Test func versionsParseAndPrintAsTheInfoPlistWritesThem() {
        #expect(CXFVersion("1.0") == .v1)
        #expect(CXFVersion("12.34") == CXFVersion(major: 12, minor: 34))
        #expect(CXFVersion.v1.description == "1.0")
        for bad in ["1", "1.", ".0", "1.0.0", "a.b", "-1.0", "1.-0", "+1.0", "", "1.0 ", "\u{0661}.0"] {
            #expect(CXFVersion(bad) == nil, "\(bad)")
        }
        #expect(CXFVersion(major: 1, minor: 9) < CXFVersion(major: 2, minor: 0))
    }

    // MARK: Strictness

    @Test(arguments: [
        (
            #"{"type":"basic-auth","password":{"fieldType":"string","value":"x"}}"#,
            CXFDecodingError.invalidValue("accounts[0].items[0].credentials[0].password.fieldType")
        ),
        (#"{"type":"basic-auth","password":{"value":"x"}}"#, .missingField("accounts[0].items[0].credentials[0].password.fieldType")),
        (
            #"{"type":"basic-auth","password":{"fieldType":"concealed-string","value":7}}"#,
            .wrongType("accounts[0].items[0].credentials[0].password.value")
        ),
        (
            #"{"type":"basic-auth","username":{"fieldType":"string","value":"j","id":"not base64!"}}"#,
            .invalidValue("accounts[0].items[0].credentials[0].username.id")
        ),
        (#"{"type":"basic-auth","username":"jane"}"#, .wrongType("accounts[0].items[0].credentials[0].username")),
        (
            #"{"type":"passkey","credentialId":"Y3JlZA","rpId":"example.com","username":"j","userDisplayName":"J","userHandle":"dQ"}"#,
            .missingField("accounts[0].items[0].credentials[0].key")
        ),
        (
            #"{"type":"passkey","credentialId":"Y3JlZA==","rpId":"e","username":"j","userDisplayName":"J","userHandle":"dQ","key":"a2V5"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].credentialId")
        ),
        (
            #"{"type":"passkey","credentialId":"Y3JlZA","rpId":"","username":"j","userDisplayName":"J","userHandle":"dQ","key":"a2V5"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].rpId")
        ),
        (
            #"{"type":"totp","secret":"jbswy3dp","period":30,"digits":6,"algorithm":"sha1"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].secret")
        ),
        (
            #"{"type":"totp","secret":"JBSWY3DPE","period":30,"digits":6,"algorithm":"sha1"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].secret")
        ),
        (
            #"{"type":"totp","secret":"JBSWY3DP","period":0,"digits":6,"algorithm":"sha1"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].period")
        ),
        (
            #"{"type":"totp","secret":"JBSWY3DP","period":30.5,"digits":6,"algorithm":"sha1"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].period")
        ),
        (
            #"{"type":"totp","secret":"JBSWY3DP","period":30,"digits":"6","algorithm":"sha1"}"#,
            .wrongType("accounts[0].items[0].credentials[0].digits")
        ),
        (#"{"type":"totp","secret":"JBSWY3DP","period":30,"digits":6}"#, .missingField("accounts[0].items[0].credentials[0].algorithm")),
        (#"{"type":"note"}"#, .missingField("accounts[0].items[0].credentials[0].content")),
        (
            #"{"type":"note","content":{"fieldType":"concealed-string","value":"x"}}"#,
            .invalidValue("accounts[0].items[0].credentials[0].content.fieldType")
        ),
        (#"{"kind":"note"}"#, .missingField("accounts[0].items[0].credentials[0].type")),
        (#"{"type":""}"#, .invalidValue("accounts[0].items[0].credentials[0].type")),
        (#""note""#, .wrongType("accounts[0].items[0].credentials[0]")),
    ])
    func rejectsMalformedCredentials(_ credential: String, _ expected: CXFDecodingError) {
        #expect(throws: expected) { try decode(credential) }
    }

    @Test func acceptsBase32WithPaddingAndRejectsBadPadding() throws {
        for good in ["JBSWY3DPEE======", "JBSWY3DPEHPK3PXP", "MZXW6===", "MZXW6YQ="] {
            #expect((try? decode(#"{"type":"totp","secret":"\#(good)","period":30,"digits":6,"algorithm":"sha1"}"#)) != nil, "\(good)")
        }
        for bad in ["MZXW6==", "MZ=XW6==", "MZXW6YQ1", "", "========", "JBSWY3DPEE=====", "MZXW6YQ==", "MZX=====", "ABCDEFGHI"] {
            #expect((try? decode(#"{"type":"totp","secret":"\#(bad)","period":30,"digits":6,"algorithm":"sha1"}"#)) == nil, "\(bad)")
        }
    }

    @Test(arguments: [
        (#"{"version":{"major":1,"minor":0}}"#, CXFDecodingError.missingField("exporterRpId")),
        (#"{"exporterRpId":"e"}"#, .missingField("version")),
        (#"{"version":"1.0"}"#, .wrongType("version")),
        (#"{"version":{"major":1}}"#, .missingField("version.minor")),
        (#"{"version":{"major":1.5,"minor":0}}"#, .invalidValue("version.major")),
        (#"{"version":{"major":-1,"minor":0}}"#, .invalidValue("version.major")),
        (
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":-5,"accounts":[]}"#,
            .invalidValue("timestamp")
        ),
        (
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":1e300,"accounts":[]}"#,
            .invalidValue("timestamp")
        ),
        (
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":1,"accounts":{}}"#,
            .wrongType("accounts")
        ),
        (
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":1,"accounts":[{"id":"YQ","username":"u","email":"e"}]}"#,
            .missingField("accounts[0].items")
        ),
        (
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":1,"accounts":[{"id":"","username":"u","email":"e","items":[]}]}"#,
            .invalidValue("accounts[0].id")
        ),
        (
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":1,"accounts":[{"id":"YQ","username":"u","email":"e","items":[{"id":"YQ","title":"t"}]}]}"#,
            .missingField("accounts[0].items[0].credentials")
        ),
        ("[]", .notAnObject),
        ("{", .invalidJSON),
        (#"{"version":{"major":1,"minor":0},"version":{"major":1,"minor":0}}"#, .invalidJSON),
    ])
    func rejectsMalformedDocuments(_ json: String, _ expected: CXFDecodingError) {
        #expect(throws: expected) { try CXFDocument.decode(Array(json.utf8)) }
    }

    @Test func anIdentifierLongerThan64BytesIsRefused() {
        let long = Base64URL.encode([UInt8](repeating: 7, count: 65))
        let json = String(decoding: Fixtures.cxf(credentials: Fixtures.note), as: UTF8.self).replacingOccurrences(of: "aXRlbQ", with: long)
        #expect(throws: CXFDecodingError.invalidValue("accounts[0].items[0].id")) { try CXFDocument.decode(Array(json.utf8)) }
    }

    @Test func refusesOversizedInputBeforeParsing() {
        #expect(throws: CXFDecodingError.tooLarge) { try CXFDocument.decode([UInt8](repeating: 0x20, count: CXFDocument.maximumSize + 1)) }
    }

    @Test func errorsNameThePathNeverTheValue() {
        let json = #"{"type":"basic-auth","password":{"fieldType":"string","value":"\#(Fixtures.password)"}}"#
        do {
            _ = try decode(json)
            Issue.record("accepted a password of field type string")
        } catch {
            #expect(Rendering.leaks(of: error, secrets: [Fixtures.password]).isEmpty)
        }
    }
}
