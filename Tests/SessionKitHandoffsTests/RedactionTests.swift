import Foundation
import SessionKit
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

/// Renders every public type of the handoffs (and their test-kit simulators) every way Swift can
/// print it, and finds none of the secrets inside.
@Suite struct RedactionTests {
    private func expectNoLeak(_ value: Any, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let leaks = Rendering.leaks(of: value, secrets: Fixtures.secrets)
        #expect(leaks.isEmpty, "\(what) shows \(leaks.count) secret(s)", sourceLocation: sourceLocation)
    }

    private static let grantBytes = Fixtures.grant(
        resolved: "[{\"entryId\":\"a\",\"reference\":{\"reference\":\"\(Fixtures.credentialReferences[0])\"}},"
            + "{\"reference\":\"\(Fixtures.credentialReferences[1])\"},{\"entryId\":\"c\",\"reference\":\"\(Fixtures.credentialReferences[2])\"}]"
    )

    @Test func accessRequestTypes() throws {
        let reference = AccessRequestReference(Fixtures.reference)
        let request = AccessRequest(reference: reference)
        let grant = try AccessGrant.decode(Self.grantBytes)
        let attachment = AccessRequestAttachment(typeIdentifiers: [AccessGrant.typeIdentifier], data: Self.grantBytes)
        let completion = AccessRequestCompletion(
            completed: true, returnedItems: [AccessRequestReturnedItem(attachments: [attachment])],
            error: AccessRequestReportedError(domain: "d", number: 1, code: .internalError))
        let values: [(String, Any)] = [
            ("AccessRequestReference", reference), ("AccessRequest", request), ("CredentialReference", grant.resolved[0].reference),
            ("AccessGrant", grant), ("AccessGrant.Entry", grant.resolved[0]), ("AccessGrant.State", grant.state),
            ("AccessGrantMatch", grant.match(requestedEntryIDs: ["a", "b"])), ("AccessRequestAttachment", attachment),
            ("AccessRequestReturnedItem", completion.returnedItems[0]), ("AccessRequestCompletion", completion),
            ("AccessRequestReportedError", completion.error as Any), ("AccessRequestErrorCode", AccessRequestErrorCode.declined),
            ("AccessRequestErrorTable", SimulatedOnePassword.errorTable), ("AccessRequestOutcome", AccessRequestOutcome(completion)),
            ("AccessRequestOutcome.granted", AccessRequestOutcome.granted(grant)),
            ("AccessRequestOutcome.notGranted", AccessRequestOutcome.notGranted(grant)),
            ("AccessRequestFailure", AccessRequestFailure.unreadableGrant(.duplicateEntryID)),
            ("AccessRequestRetryPolicy", AccessRequestRetryPolicy.presentAgainLater),
            ("AccessRequestEvent", AccessRequestEvent.granted(entries: 3)),
            ("AccessRequestCancellation", AccessRequestCancellation.timedOut),
            ("AccessRequestError", AccessRequestError.presentationFailed("no window")),
            ("AccessRequestPresentationError", AccessRequestPresentationError.unavailable("no window")),
            ("AccessGrantDecodingError", AccessGrantDecodingError.invalidValue("resolved[0].reference")),
            ("request JSON as a payload", CredentialExchangePayload(request.jsonBytes())),
        ]
        for (name, value) in values { expectNoLeak(value, name) }
    }

    @Test func credentialImportTypes() throws {
        let bytes = Fixtures.cxf(
            credentials: [Fixtures.basicAuth, Fixtures.passkey, Fixtures.totp, Fixtures.note, Fixtures.creditCard].joined(separator: ","),
            item: #","scope":{"urls":["https://example.com"],"androidApps":[{"bundleId":"com.example"}]}"#)
        let document = try CXFDocument.decode(bytes)
        let item = document.accounts[0].items[0]
        let activity = CredentialImportActivity(
            activityType: "a", userInfo: ["t": .string(Fixtures.tokenText), "u": .uuid(Fixtures.token.uuid)])
        var values: [(String, Any)] = [
            ("CredentialImportToken", Fixtures.token), ("CredentialImportActivity", activity),
            ("CredentialImportActivity.Value", CredentialImportActivity.Value.uuid(Fixtures.token.uuid)),
            ("CredentialImportIntake", SimulatedCredentialExporter.intake),
            ("CredentialImportIntakeError", CredentialImportIntakeError.malformedToken),
            ("CredentialExchangePayload", CredentialExchangePayload(bytes)),
            ("CredentialImporterError", CredentialImporterError.failed("NSCocoaErrorDomain 4")), ("CXFDocument", document),
            ("CXFAccount", document.accounts[0]), ("CXFItem", item), ("CXFCredentialScope", item.scope as Any),
            ("CXFSummary", document.summary), ("CXFVersion", document.version),
            ("CXFDecodingError", CXFDecodingError.invalidValue("accounts[0].items[0].credentials[0].key")),
            (
                "CredentialImportError",
                CredentialImportError.unsupportedVersion(found: .v1, supported: [.v1], payload: CredentialExchangePayload(bytes))
            ),
            (
                "CredentialImportError.invalidData",
                CredentialImportError.invalidData(.invalidJSON, payload: CredentialExchangePayload(bytes))
            ),
            ("CredentialImportEvent", CredentialImportEvent.imported(document.summary)),
            (
                "ImportTokenLedgerRecord",
                {
                    var record = ImportTokenLedgerRecord()
                    _ = record.insert(Fixtures.token.ledgerDigest, capacity: 3)
                    return record
                }()
            ),
        ]
        for credential in item.credentials {
            values.append(("CXFCredential.\(credential.type)", credential))
            if case .totp(let totp) = credential { values.append(("CXFTOTPCredential.Algorithm", totp.algorithm)) }
            if let payload = Mirror(reflecting: credential).children.first?.value { values.append(("\(type(of: payload))", payload)) }
        }
        #expect(item.credentials.count == 5)
        for (name, value) in values { expectNoLeak(value, name) }
    }

    @Test func everyCredentialTypeAndEveryDiagnosticOfAnExport() throws {
        let secrets = ExporterFixtures.secrets + Fixtures.secrets
        let full = try CXFDocument.decode(Array(ExporterFixtures.full.utf8))
        var values: [(String, Any)] = [("CXFDocument (every type)", full), ("CXFCollection", full.accounts[0].collections[0])]
        values.append(("CXFLinkedItem", full.accounts[0].collections[0].items[0]))
        values.append(("CXFExtension", full.accounts[0].items[0].extensions[0]))
        for credential in full.accounts[0].items[0].credentials {
            values.append(("CXFCredential.\(credential.type)", credential))
            if let payload = Mirror(reflecting: credential).children.first?.value { values.append(("\(type(of: payload))", payload)) }
        }
        if case .passkey(let passkey) = full.accounts[0].items[0].credentials[11], let extensions = passkey.fido2Extensions {
            values += [
                ("CXFPasskeyCredential.Extensions", extensions), ("HMACCredentials", extensions.hmacCredentials as Any),
                ("LargeBlob", extensions.largeBlob as Any),
            ]
        }
        // Every credential broken (a wrong `fieldType` on a concealed member, or a missing
        // required one), so each is kept raw with its secrets inside.
        let broken = ExporterFixtures.full.replacingOccurrences(of: #""fieldType":"concealed-string""#, with: #""fieldType":"date""#)
            .replacingOccurrences(of: #""type":"generated-password","password""#, with: #""type":"generated-password","pass""#)
            .replacingOccurrences(of: #""privateKey""#, with: #""private""#).replacingOccurrences(of: #""key":"#, with: #""ke":"#)
        let lenient = ExporterFixtures.full.replacingOccurrences(of: #""fieldType":"concealed-string""#, with: #""fieldType":"string""#)
        let damaged = try CXFDocument.decode(Array(broken.utf8))
        let kept = try CXFDocument.decode(Array(lenient.utf8))
        #expect(damaged.allUndecodable.count >= 6)
        #expect(!kept.leniencies.isEmpty)
        values += [("CXFDocument (damaged)", damaged), ("CXFDocument (lenient)", kept), ("CXFUndecoded", damaged.allUndecodable)]
        values += [
            ("CXFLeniency", kept.leniencies), ("CXFLeniency.Kind", CXFLeniency.Kind.allCases),
            ("CXFFieldType", CXFFieldType.concealedString),
        ]
        values += [("CXFSummary", damaged.summary), ("CXFJSONEncoding", CXFJSONEncoding.makeEncoder())]
        for (name, value) in values {
            let leaks = Rendering.leaks(of: value, secrets: secrets)
            #expect(leaks.isEmpty, "\(name) shows \(leaks.count) secret(s)")
        }
    }

    @Test func actorsAndSimulatorsInTheMiddleOfTheirWork() async throws {
        let clock = TestClock()
        let onePassword = SimulatedOnePassword(
            clock: clock,
            answers: [
                .neverAnswer,
                .grant([.init(entryID: "a", reference: Fixtures.credentialReferences[0]), .extra(Fixtures.credentialReferences[1])]),
            ])
        let handoff = AccessRequestHandoff(presenter: onePassword, clock: clock, timeout: .seconds(60))
        let request = Task { try await handoff.request(AccessRequestReference(Fixtures.reference)) }
        await onePassword.waitForSuspendedPresentations()
        expectNoLeak(handoff, "AccessRequestHandoff while presenting")
        expectNoLeak(onePassword, "SimulatedOnePassword")
        expectNoLeak(onePassword.log, "SimulatedOnePassword.log")
        request.cancel()
        _ = try? await request.value
        let granted = try await handoff.request(AccessRequestReference(Fixtures.reference))
        expectNoLeak(granted, "a granted outcome")
        expectNoLeak(SimulatedOnePasswordAnswer.grant([.extra(Fixtures.credentialReferences[2])]), "SimulatedOnePasswordAnswer")
        expectNoLeak(SimulatedOnePasswordEntry.extra(Fixtures.credentialReferences[2]), "SimulatedOnePasswordEntry")

        let exporter = SimulatedCredentialExporter(clock: clock)
        let data = Fixtures.cxf(credentials: [Fixtures.basicAuth, Fixtures.note].joined(separator: ","))
        let hanging = exporter.offer(.hang)
        let served = exporter.offer(.serve(data))
        let ledger = InMemoryImportTokenLedger()
        let coordinator = CredentialImportCoordinator(
            importer: exporter, ledger: ledger, intake: SimulatedCredentialExporter.intake, clock: clock)
        let importing = Task { try await coordinator.importCredentials(with: hanging) }
        await exporter.waitForHangingImports()
        expectNoLeak(coordinator, "CredentialImportCoordinator while importing")
        expectNoLeak(exporter, "SimulatedCredentialExporter")
        expectNoLeak(ledger, "InMemoryImportTokenLedger")
        expectNoLeak(exporter.activity(for: served), "a simulated activity")
        importing.cancel()
        _ = try? await importing.value
        expectNoLeak(try await coordinator.importCredentials(with: served), "an imported document")
        expectNoLeak(exporter.log, "SimulatedCredentialExporter.log")
        expectNoLeak(SimulatedCredentialExporter.Behaviour.serve(data), "SimulatedCredentialExporter.Behaviour")
        let sample = SimulatedCXFDocument(items: [
            .init(title: "t", credentials: [.login(username: "u", password: Fixtures.password, urls: [], apps: [])])
        ])
        expectNoLeak(sample, "SimulatedCXFDocument")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fileLedger = FileImportTokenLedger(directory: directory)
        _ = try await fileLedger.markUsed(Fixtures.token)
        expectNoLeak(fileLedger, "FileImportTokenLedger")
    }

    @Test func theHelperFindsASecretThatIsShown() {
        struct Leaky { var value = Fixtures.password }
        #expect(Rendering.leaks(of: Leaky(), secrets: Fixtures.secrets) == [Fixtures.password])
    }
}
