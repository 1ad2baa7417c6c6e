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
                    + #""certificate":{"fingerprint":"AAAA","hashAlg":"sha256"}}]}"#))
        #expect(document.version == .v1)
        #expect(document.exporterRelyingPartyID == "exporter.example")
        #expect(document.exporterDisplayName == "Exporter")
        #expect(document.timestamp == Date(timeIntervalSince1970: 1_705_228_800))
        #expect(document.undecodable.isEmpty && document.leniencies.isEmpty)
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

    @Test func anAndroidCertificateUnderApplesPropertyNameIsReadAndNoted() throws {
        let document = try CXFDocument.decode(
            Fixtures.cxf(
                credentials: Fixtures.note,
                item:
                    #","scope":{"urls":[],"androidApps":[{"bundleId":"com.example","certificate":{"fingerprint":"AAAA","hashAlgorithm":"sha1"}}]}"#
            ))
        #expect(document.accounts[0].items[0].scope?.androidApps.first?.certificateHashAlgorithm == "sha1")
        #expect(
            document.leniencies == [
                CXFLeniency(kind: .hashAlgorithmMemberName, path: "accounts[0].items[0].scope.androidApps[0].certificate.hashAlgorithm")
            ])
    }

    @Test func decodesBasicAuth() throws {
        guard case .basicAuth(let login) = try decode(Fixtures.basicAuth).first else {
            Issue.record("not basic-auth")
            return
        }
        #expect(login.username == CXFField(value: "jane", fieldType: .string, id: "dXNlcg", label: "Email"))
        #expect(login.password?.value.value == Fixtures.password)
        #expect(login.password?.fieldType == .concealedString)
        #expect(try decode(#"{"type":"basic-auth"}"#) == [.basicAuth(CXFBasicAuthCredential(username: nil, password: nil))])
    }

    @Test func decodesAPasskeyWithItsFIDO2Extensions() throws {
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
        #expect(passkey.fido2Extensions == CXFPasskeyCredential.Extensions(credentialBlob: Secret("YmxvYi1TRUNSRVQ")))
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

    // MARK: Every type, as an exporter writes it

    /// The values of a credential's optional members, by reflection: the credential types have
    /// no custom mirrors, so this sees every stored member.
    private func optionalMembers(of value: Any) -> [(String, Bool)] {
        Mirror(reflecting: value).children.compactMap { child in
            let mirror = Mirror(reflecting: child.value)
            guard mirror.displayStyle == .optional else { return nil }
            return (child.label ?? "?", !mirror.children.isEmpty)
        }
    }

    private func payload(of credential: CXFCredential) -> Any? {
        Mirror(reflecting: credential).children.first?.value
    }

    @Test(arguments: [("full", ExporterFixtures.full), ("minimal", ExporterFixtures.minimal)])
    func everyCredentialTypeAsAnExporterWritesItIsTyped(_ name: String, _ json: String) throws {
        let document = try CXFDocument.decode(Array(json.utf8))
        #expect(document.allUndecodable.isEmpty, "\(document.allUndecodable)")
        #expect(document.leniencies.isEmpty, "\(document.leniencies)")
        let credentials = document.accounts[0].items[0].credentials
        #expect(credentials.map(\.type) == CXFCredential.knownTypes)
        for credential in credentials {
            if case .opaque = credential { Issue.record("\(credential.type) kept opaque") }
            let members = optionalMembers(of: try #require(payload(of: credential)))
            // Written with every optional member, each is there; written without, none is.
            for (member, present) in members where present != (name == "full") {
                Issue.record("\(name): \(credential.type).\(member) is \(present ? "present" : "absent")")
            }
        }
        #expect(document.summary.credentials.count == 17)
        #expect(document.summary.opaque == 0)
    }

    @Test func theFullExportKeepsEveryStructuralMember() throws {
        let document = try CXFDocument.decode(Array(ExporterFixtures.full.utf8))
        let account = document.accounts[0]
        #expect(account.fullName == "Jane Example")
        #expect(account.extensions.map(\.name) == ["x-exporter"])
        let collection = try #require(account.collections.first)
        #expect(collection.title == "Work" && collection.subtitle == "work items")
        #expect(collection.createdAt == Date(timeIntervalSince1970: 1_735_689_600))
        #expect(collection.items == [CXFLinkedItem(item: "aXRlbS0x"), CXFLinkedItem(item: "aXRlbS05", account: "YWNjb3VudC0y")])
        #expect(collection.subCollections.map(\.title) == ["Inner"])
        #expect(collection.extensions.map(\.name) == ["x-exporter"])
        let item = account.items[0]
        #expect(item.extensions.map(\.name) == ["shared"])
        #expect(item.scope?.androidApps.first?.certificateHashAlgorithm == "sha256")
        guard case .creditCard(let card) = item.credentials[3], case .wifi(let wifi) = item.credentials[16],
            case .customFields(let custom) = item.credentials[4], case .passkey(let passkey) = item.credentials[11],
            case .sshKey(let ssh) = item.credentials[14], case .file(let file) = item.credentials[6]
        else {
            Issue.record("types out of order")
            return
        }
        #expect(card.number?.value.value == "4111-SECRET-3")
        #expect(card.expiryDate?.value == "2028-04" && card.expiryDate?.fieldType == .yearMonth)
        #expect(wifi.networkSecurityType?.fieldType == .wifiNetworkSecurityType && wifi.hidden?.value == "false")
        #expect(custom.fields.map(\.fieldType) == [.string, .concealedString] && custom.label == "Security question")
        #expect(custom.extensions.map(\.name) == ["x-exporter"])
        #expect(passkey.fido2Extensions?.hmacCredentials?.algorithm == "hmac-sha256")
        #expect(passkey.fido2Extensions?.largeBlob?.uncompressedSize == 42 && passkey.fido2Extensions?.payments == true)
        #expect(ssh.keyType == "ssh-ed25519" && ssh.keyComment == "jane@laptop")
        #expect(file.name == "scan.pdf" && file.decryptedSize == 1024)
    }

    @Test func unknownTypesStayOpaqueWithTheirJSON() throws {
        let future = #"{"type":"x-future","anything":[1,{"a":null}]}"#
        let credentials = try decode([Fixtures.creditCard, Fixtures.basicAuth, future].joined(separator: ","))
        #expect(credentials.map(\.type) == ["credit-card", "basic-auth", "x-future"])
        guard case .creditCard = credentials[0], case .opaque(let opaque) = credentials[2] else {
            Issue.record("credit card not typed, or the future type not opaque")
            return
        }
        // The opaque JSON is the credential as received, compacted: nothing is lost.
        #expect(try JSONParser.parse(Array(opaque.json.value.utf8)) == (try JSONParser.parse(Array(future.utf8))))
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
        #expect(
            document.summary
                == CXFSummary(accounts: 1, items: 5, credentials: ["basic-auth": 1, "passkey": 1, "totp": 1, "note": 1, "credit-card": 1]))
        #expect(
            "\(document.summary)"
                == "1 account, 5 items: basic-auth 1, credit-card 1, note 1, passkey 1, totp 1; 0 opaque, 0 undecodable, 0 leniencies")
        let login = document.accounts[0].items[0]
        #expect(login.scope?.urls == ["https://example.com/login"])
        #expect(login.scope?.androidApps.map(\.bundleID) == ["com.example.android"])
    }

    // MARK: Versions

    @Test func refusesAnotherMajorVersionBeforeReadingTheRest() {
        let future = Array(#"{"version":{"major":2,"minor":0},"whatever":true}"#.utf8)
        #expect(throws: CXFDecodingError.unsupportedVersion(found: CXFVersion(major: 2, minor: 0), supported: [.v1])) {
            try CXFDocument.decode(future)
        }
    }

    @Test func aNewerMinorVersionIsReadWithItsAdditionsIgnored() throws {
        let json = String(decoding: Fixtures.cxf(credentials: Fixtures.note, version: #"{"major":1,"minor":3}"#), as: UTF8.self)
            .replacingOccurrences(of: #""title":"Item""#, with: #""title":"Item","addedInOneDotThree":{"x":1}"#)
        let document = try CXFDocument.decode(Array(json.utf8))
        #expect(document.version == CXFVersion(major: 1, minor: 3))
        #expect(document.accounts[0].items[0].credentials.map(\.type) == ["note"])
        #expect(document.leniencies == [CXFLeniency(kind: .newerMinorVersion, path: "version")])
        // Declared, it is no leniency; an older minor than declared is read as is.
        let declared = try CXFDocument.decode(Array(json.utf8), supportedVersions: [.v1, CXFVersion(major: 1, minor: 3)])
        #expect(declared.leniencies.isEmpty)
        #expect(
            try CXFDocument.decode(Fixtures.cxf(credentials: Fixtures.note), supportedVersions: [CXFVersion(major: 1, minor: 1)]).leniencies
                .isEmpty)
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

    // MARK: One bad credential loses only itself

    @Test(arguments: [
        (
            #"{"type":"basic-auth","password":{"value":"x"}}"#,
            CXFDecodingError.missingField("accounts[0].items[0].credentials[0].password.fieldType")
        ),
        (
            #"{"type":"basic-auth","password":{"fieldType":"concealed-string","value":7}}"#,
            .wrongType("accounts[0].items[0].credentials[0].password.value")
        ),
        (
            #"{"type":"basic-auth","password":{"fieldType":"date","value":"x"}}"#,
            .invalidValue("accounts[0].items[0].credentials[0].password.fieldType")
        ),
        (
            #"{"type":"basic-auth","username":{"fieldType":"concealed-string","value":"x"}}"#,
            .invalidValue("accounts[0].items[0].credentials[0].username.fieldType")
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
            #"{"type":"passkey","credentialId":"Y3JlZA","rpId":"","username":"j","userDisplayName":"J","userHandle":"dQ","key":"a2V5"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].rpId")
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
            #"{"type":"file","id":"ZmlsZQ","name":"a","decryptedSize":-1,"integrityHash":"aGFzaA"}"#,
            .invalidValue("accounts[0].items[0].credentials[0].decryptedSize")
        ),
        (#"{"type":"ssh-key","keyType":"ssh-ed25519"}"#, .missingField("accounts[0].items[0].credentials[0].privateKey")),
        (#"{"type":"item-reference","reference":{}}"#, .missingField("accounts[0].items[0].credentials[0].reference.item")),
        (#"{"type":"custom-fields","fields":[{"value":"x"}]}"#, .missingField("accounts[0].items[0].credentials[0].fields[0].fieldType")),
        (#"{"kind":"note"}"#, .missingField("accounts[0].items[0].credentials[0].type")),
        (#"{"type":""}"#, .invalidValue("accounts[0].items[0].credentials[0].type")),
        (#""note""#, .wrongType("accounts[0].items[0].credentials[0]")),
    ])
    func aMalformedCredentialIsKeptWholeAndTheRestImports(_ credential: String, _ expected: CXFDecodingError) throws {
        let credentials = try decode(credential + "," + Fixtures.basicAuth)
        #expect(credentials.count == 2)
        guard case .undecodable(let entry) = credentials[0], case .basicAuth = credentials[1] else {
            Issue.record("not kept as undecodable beside the good credential: \(credentials.map(\.type))")
            return
        }
        #expect(entry.problem == expected)
        #expect(entry.path == "accounts[0].items[0].credentials[0]")
        // Kept whole: the JSON is the credential as it arrived.
        #expect(try JSONParser.parse(Array(entry.json.value.utf8)) == (try JSONParser.parse(Array(credential.utf8))))
    }

    @Test func aPartialImportKeepsTheBadItemAndEveryGoodOne() throws {
        let good = #"{"id":"Z29vZA","title":"Good","credentials":[\#(Fixtures.basicAuth)]}"#
        let bad = #"{"id":"not base64!","title":"Bad","credentials":[\#(Fixtures.note)]}"#
        let json =
            #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":1,"accounts":["#
            + #"{"id":"YQ","username":"u","email":"e","collections":[],"items":[\#(good),\#(bad),\#(good)]},"oops"]}"#
        let document = try CXFDocument.decode(Array(json.utf8))
        #expect(document.accounts.count == 1)
        #expect(document.accounts[0].items.map(\.title) == ["Good", "Good"])
        #expect(document.accounts[0].undecodable.map(\.path) == ["accounts[0].items[1]"])
        #expect(document.accounts[0].undecodable.first?.problem == .invalidValue("accounts[0].items[1].id"))
        #expect(document.undecodable.map(\.path) == ["accounts[1]"])
        #expect(document.undecodable.first?.problem == .wrongType("accounts[1]"))
        #expect(document.allUndecodable.count == 2)
        #expect(document.summary.undecodable == 2)
        let kept = try #require(document.accounts[0].undecodable.first)
        #expect(try JSONParser.parse(Array(kept.json.value.utf8)) == (try JSONParser.parse(Array(bad.utf8))))
        #expect(Rendering.leaks(of: document, secrets: Fixtures.secrets).isEmpty)
    }

    @Test func brokenHeaderMembersAndAccountsAreKeptNotFatal() throws {
        let json =
            #"{"version":{"major":1,"minor":0},"exporterDisplayName":7,"timestamp":-5,"accounts":["#
            + #"{"id":"YQ","username":"u","email":"e"},{"id":"","username":"u","email":"e","items":[]},"#
            + #"{"id":"YQ","username":"u","email":"e","items":[{"id":"YQ","title":"t"}]}]}"#
        let document = try CXFDocument.decode(Array(json.utf8))
        #expect(document.exporterRelyingPartyID == "" && document.exporterDisplayName == "" && document.timestamp == nil)
        #expect(
            document.undecodable.map(\.problem) == [
                .missingField("exporterRpId"), .wrongType("exporterDisplayName"), .invalidValue("timestamp"),
                .missingField("accounts[0].items"), .invalidValue("accounts[1].id"),
            ])
        #expect(document.accounts.count == 1)
        #expect(document.accounts[0].undecodable.map(\.problem) == [.missingField("accounts[2].items[0].credentials")])
    }

    // MARK: Leniencies

    @Test func lenientSpellingsAreReadAsTheirMeaningAndReported() throws {
        let credentials = [
            #"{"type":"totp","secret":"jbsw y3dp ehpk 3pxp","period":30,"digits":6,"algorithm":"sha1"}"#,
            #"{"type":"basic-auth","password":{"fieldType":"string","value":"\#(Fixtures.password)"}}"#,
            #"{"type":"passkey","credentialId":"Y3JlZA==","rpId":"e","username":"j","userDisplayName":"J","userHandle":"dR","key":"a+/5"}"#,
        ]
        let document = try CXFDocument.decode(
            Fixtures.cxf(credentials: credentials.joined(separator: ","), item: #","creationAt":1705142400.25"#))
        let item = document.accounts[0].items[0]
        #expect(item.createdAt == Date(timeIntervalSince1970: 1_705_142_400.25))
        guard case .totp(let totp) = item.credentials[0], case .basicAuth(let login) = item.credentials[1],
            case .passkey(let passkey) = item.credentials[2]
        else {
            Issue.record("a lenient spelling was refused: \(item.credentials.map(\.type))")
            return
        }
        #expect(totp.secret.value == "JBSWY3DPEHPK3PXP")
        #expect(login.password?.value.value == Fixtures.password)
        #expect(login.password?.fieldType == .string)
        // The canonical text of the same bytes: padding dropped, trailing bits cleared, url alphabet.
        #expect(passkey.credentialID == "Y3JlZA")
        #expect(passkey.userHandle == "dQ")
        #expect(passkey.key.value == "a-_5")
        let path = "accounts[0].items[0]"
        #expect(
            document.leniencies == [
                CXFLeniency(kind: .base32CaseOrSpaces, path: "\(path).credentials[0].secret"),
                CXFLeniency(kind: .stringForConcealedField, path: "\(path).credentials[1].password.fieldType"),
                CXFLeniency(kind: .paddedBase64URL, path: "\(path).credentials[2].credentialId"),
                CXFLeniency(kind: .base64URLTrailingBits, path: "\(path).credentials[2].userHandle"),
                CXFLeniency(kind: .standardBase64, path: "\(path).credentials[2].key"),
                CXFLeniency(kind: .fractionalTimestamp, path: "\(path).creationAt"),
            ])
        #expect(document.leniencies.map(\.description).allSatisfy { !$0.contains(Fixtures.password) })
    }

    @Test func leniencyInsideARejectedEntryIsDroppedWithIt() throws {
        let credential = #"{"type":"totp","secret":"jbswy3dp","period":0,"digits":6,"algorithm":"sha1"}"#
        let document = try CXFDocument.decode(Fixtures.cxf(credentials: credential))
        #expect(document.allUndecodable.count == 1)
        #expect(document.leniencies.isEmpty)
    }

    @Test func acceptsBase32WithPaddingAndRejectsBadPadding() throws {
        func isTOTP(_ secret: String) throws -> Bool {
            if case .totp = try decode(#"{"type":"totp","secret":"\#(secret)","period":30,"digits":6,"algorithm":"sha1"}"#).first {
                return true
            }
            return false
        }
        for good in ["JBSWY3DPEE======", "JBSWY3DPEHPK3PXP", "MZXW6===", "MZXW6YQ=", "mzxw6yq=", "MZXW 6YQ="] {
            #expect(try isTOTP(good), "\(good)")
        }
        for bad in ["MZXW6==", "MZ=XW6==", "MZXW6YQ1", "", " ", "========", "JBSWY3DPEE=====", "MZXW6YQ==", "MZX=====", "ABCDEFGHI"] {
            #expect(try !isTOTP(bad), "\(bad)")
        }
    }

    @Test func lenientBase64AcceptsOnlyWhatHasOneMeaning() {
        #expect(CXFReader.lenientBase64("AQID")?.0 == [1, 2, 3])
        #expect(CXFReader.lenientBase64("AQ==")?.1 == [.paddedBase64URL])
        #expect(CXFReader.lenientBase64("AR")?.1 == [.base64URLTrailingBits])
        for bad in ["A", "AQ=", "AQ===", "A=Q=", "AQ==AQ", "AQ!D", "AQ\u{00E9}"] {
            #expect(CXFReader.lenientBase64(bad) == nil, "\(bad)")
        }
    }

    // MARK: Whole-document failures

    @Test(arguments: [
        (#"{"exporterRpId":"e"}"#, CXFDecodingError.missingField("version")),
        (#"{"version":"1.0"}"#, .wrongType("version")),
        (#"{"version":{"major":1}}"#, .missingField("version.minor")),
        (#"{"version":{"major":1.5,"minor":0}}"#, .invalidValue("version.major")),
        (#"{"version":{"major":-1,"minor":0}}"#, .invalidValue("version.major")),
        (#"{"version":{"major":1,"minor":0}}"#, .missingField("accounts")),
        (#"{"version":{"major":1,"minor":0},"exporterRpId":"e","accounts":{}}"#, .wrongType("accounts")),
        ("[]", .notAnObject),
        ("{", .invalidJSON),
        (#"{"version":{"major":1,"minor":0},"version":{"major":1,"minor":0}}"#, .invalidJSON),
    ])
    func onlyDataThatIsNotTheFormatFailsAsAWhole(_ json: String, _ expected: CXFDecodingError) {
        #expect(throws: expected) { try CXFDocument.decode(Array(json.utf8)) }
    }

    @Test func anIdentifierLongerThan64BytesLosesOnlyItsItem() throws {
        let long = Base64URL.encode([UInt8](repeating: 7, count: 65))
        let json = String(decoding: Fixtures.cxf(credentials: Fixtures.note), as: UTF8.self).replacingOccurrences(of: "aXRlbQ", with: long)
        let document = try CXFDocument.decode(Array(json.utf8))
        #expect(document.accounts[0].items.isEmpty)
        #expect(document.accounts[0].undecodable.map(\.problem) == [.invalidValue("accounts[0].items[0].id")])
    }

    @Test func refusesOversizedInputBeforeParsing() {
        #expect(throws: CXFDecodingError.tooLarge) { try CXFDocument.decode([UInt8](repeating: 0x20, count: CXFDocument.maximumSize + 1)) }
    }

    @Test func diagnosticsNameThePathNeverTheValue() throws {
        let json = #"{"type":"basic-auth","password":{"fieldType":"date","value":"\#(Fixtures.password)"}}"#
        guard case .undecodable(let entry) = try decode(json).first else {
            Issue.record("accepted a password of field type date")
            return
        }
        #expect(Rendering.leaks(of: entry, secrets: [Fixtures.password]).isEmpty)
        #expect(entry.description == "CXFUndecoded(accounts[0].items[0].credentials[0], type: basic-auth: \(entry.problem))")
    }
}
