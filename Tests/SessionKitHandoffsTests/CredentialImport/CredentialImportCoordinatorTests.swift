import Foundation
import SessionKit
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct CredentialImportCoordinatorTests {
    let clock = TestClock()
    let exporter: SimulatedCredentialExporter
    let ledger = InMemoryImportTokenLedger()
    let recorder = EventRecorder<CredentialImportEvent>()

    init() {
        exporter = SimulatedCredentialExporter(clock: clock)
    }

    private func makeCoordinator(
        ledger: (any ImportTokenLedger)? = nil, versions: [CXFVersion] = [.v1], timeout: Duration? = nil
    ) async -> CredentialImportCoordinator<TestClock> {
        let coordinator = CredentialImportCoordinator(
            importer: exporter, ledger: ledger ?? self.ledger, intake: SimulatedCredentialExporter.intake, supportedVersions: versions,
            clock: clock, timeout: timeout)
        await coordinator.addObserver { [recorder] in recorder.record($0) }
        return coordinator
    }

    private static let sample = SimulatedCXFDocument.sample().jsonBytes()

    @Test func importsOnceThenRefusesTheSameToken() async throws {
        let token = exporter.offer(.serve(Self.sample))
        let coordinator = await makeCoordinator()
        let document = try await coordinator.handle(exporter.activity(for: token))
        #expect(document.summary.items == 5)
        await #expect(throws: CredentialImportError.alreadyUsed) { try await coordinator.handle(exporter.activity(for: token)) }
        #expect(exporter.log.map(\.description) == ["token #1: serve \(Self.sample.count) bytes"])
        #expect(recorder.recorded == [.started, .imported(document.summary), .started, .alreadyUsed])
    }

    @Test func theSameTokenIsRefusedAfterARelaunch() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = exporter.offer(.serve(Self.sample))
        let firstLaunch = await makeCoordinator(ledger: FileImportTokenLedger(directory: directory))
        _ = try await firstLaunch.importCredentials(with: token)
        // A new process: a new coordinator and ledger over the same directory.
        let relaunched = await makeCoordinator(ledger: FileImportTokenLedger(directory: directory))
        await #expect(throws: CredentialImportError.alreadyUsed) { try await relaunched.handle(exporter.activity(for: token)) }
        #expect(exporter.log.count == 1)
    }

    @Test func aSecondDeliveryWhileImportingJoins() async throws {
        let token = exporter.offer(.after(.seconds(5), .serve(Self.sample)))
        let coordinator = await makeCoordinator()
        let events = await coordinator.events()
        let first = Task { try await coordinator.handle(exporter.activity(for: token)) }
        await clock.waitForSleepers()
        let second = Task { try await coordinator.handle(exporter.activity(for: token)) }
        #expect(await waitFor(events) { $0 == .joined })
        clock.advance(by: .seconds(5))
        let (a, b) = try await (first.value, second.value)
        #expect(a == b)
        #expect(exporter.log.count == 1)
        #expect(ledger.markCount == 1)
    }

    @Test func differentTokensAreSerialised() async throws {
        let slow = exporter.offer(.after(.seconds(5), .serve(Self.sample)))
        let fast = exporter.offer(.serve(Self.sample))
        let coordinator = await makeCoordinator()
        let events = await coordinator.events()
        let first = Task { try await coordinator.importCredentials(with: slow) }
        await clock.waitForSleepers()
        let second = Task { try await coordinator.importCredentials(with: fast) }
        #expect(await waitFor(events) { $0 == .queued })
        // The second token has not reached the exporter while the first imports.
        #expect(exporter.log.map(\.tokenNumber) == [1])
        clock.advance(by: .seconds(5))
        _ = try await (first.value, second.value)
        #expect(exporter.log.map(\.tokenNumber) == [1, 2])
    }

    @Test func dataInAnotherVersionIsATypedErrorThatHandsTheDataOver() async throws {
        let bytes = SimulatedCXFDocument.sample(version: CXFVersion(major: 2, minor: 0)).jsonBytes()
        let token = exporter.offer(.serve(bytes))
        let coordinator = await makeCoordinator()
        await #expect(
            throws: CredentialImportError.unsupportedVersion(
                found: CXFVersion(major: 2, minor: 0), supported: [.v1], payload: CredentialExchangePayload(bytes))
        ) {
            try await coordinator.importCredentials(with: token)
        }
        // Spent: the exporter handed the data over; the token is not tried again.
        await #expect(throws: CredentialImportError.alreadyUsed) { try await coordinator.importCredentials(with: token) }
    }

    @Test func theDeclaredVersionsDecide() async throws {
        let token = exporter.offer(.serve(SimulatedCXFDocument.sample(version: CXFVersion(major: 1, minor: 1)).jsonBytes()))
        let coordinator = await makeCoordinator(versions: [.v1, CXFVersion(major: 1, minor: 1)])
        #expect(try await coordinator.importCredentials(with: token).version == CXFVersion(major: 1, minor: 1))
        #expect(coordinator.supportedVersions == [.v1, CXFVersion(major: 1, minor: 1)])
    }

    @Test func dataThatIsNotTheFormatIsATypedErrorThatHandsTheDataOverOnce() async throws {
        let bytes = Array(#"{"version":{"major":1,"minor":0},"vault":["SECRET"]}"#.utf8)
        let token = exporter.offer(.serve(bytes))
        let coordinator = await makeCoordinator()
        let error: CredentialImportError
        do {
            _ = try await coordinator.importCredentials(with: token)
            Issue.record("data without accounts was imported")
            return
        } catch let thrown {
            error = thrown
        }
        #expect(error == .invalidData(.missingField("accounts"), payload: CredentialExchangePayload(bytes)))
        #expect(error.payload?.bytes == bytes)
        #expect(!"\(error)".contains("SECRET"))
        // The token is spent: the data was handed over, and the exporter is not asked again.
        await #expect(throws: CredentialImportError.alreadyUsed) { try await coordinator.importCredentials(with: token) }
        #expect(exporter.log.count == 1)
    }

    @Test func aPartialImportReturnsTheGoodItemsAndKeepsTheBadOne() async throws {
        let broken =
            #"{"type":"passkey","credentialId":"Y3JlZA","rpId":"example.com","username":"a","userDisplayName":"A","userHandle":"dQ"}"#
        var data = SimulatedCXFDocument.sample()
        data.items.insert(.init(title: "Broken passkey", credentials: [.raw(broken)]), at: 1)
        let token = exporter.offer(.serve(data.jsonBytes()))
        let coordinator = await makeCoordinator()
        let events = await coordinator.events()
        let document = try await coordinator.importCredentials(with: token)
        #expect(document.accounts[0].items.map(\.title).count == 6)
        let undecodable = document.allUndecodable
        #expect(undecodable.map(\.path) == ["accounts[0].items[1].credentials[0]"])
        #expect(undecodable.first?.problem == .missingField("accounts[0].items[1].credentials[0].key"))
        #expect(document.summary.credentials.values.reduce(0, +) == 5)
        #expect(await waitFor(events) { if case .imported(let summary) = $0 { summary.undecodable == 1 } else { false } })
    }

    @Test func anExporterFailureIsReported() async throws {
        let token = exporter.offer(.fail("the exporting app quit"))
        await #expect(throws: CredentialImportError.importerFailed(.failed("the exporting app quit"))) {
            try await makeCoordinator().importCredentials(with: token)
        }
        #expect(recorder.recorded.last == .failed(.importerFailed(.failed("the exporting app quit"))))
    }

    @Test func aHangingImportTimesOutOnTheInjectedClock() async throws {
        let token = exporter.offer(.hang)
        let coordinator = await makeCoordinator(timeout: .seconds(120))
        let running = Task { try await coordinator.importCredentials(with: token) }
        await exporter.waitForHangingImports()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(119))
        #expect(await coordinator.isImporting)
        clock.advance(by: .seconds(1))
        await #expect(throws: CredentialImportError.timedOut) { try await running.value }
        #expect(exporter.hangingImportCount == 0)
    }

    @Test func cancellingTheOnlyCallerAbandonsTheImport() async throws {
        let token = exporter.offer(.hang)
        let coordinator = await makeCoordinator()
        let running = Task { try await coordinator.importCredentials(with: token) }
        await exporter.waitForHangingImports()
        running.cancel()
        await #expect(throws: CredentialImportError.cancelled) { try await running.value }
        #expect(!(await coordinator.isImporting))
        #expect(recorder.recorded == [.started, .abandoned])
        await #expect(throws: CredentialImportError.alreadyUsed) { try await coordinator.importCredentials(with: token) }
    }

    @Test func aLedgerThatCannotBeWrittenImportsNothing() async throws {
        let token = exporter.offer(.serve(Self.sample))
        ledger.failNext(with: .permissionDenied("read-only volume"))
        await #expect(throws: CredentialImportError.storage(.permissionDenied("read-only volume"))) {
            try await makeCoordinator().importCredentials(with: token)
        }
        #expect(exporter.log.isEmpty)
    }

    @Test func aForeignActivityIsRefusedBeforeAnything() async throws {
        let coordinator = await makeCoordinator()
        await #expect(throws: CredentialImportError.intake(.wrongActivityType)) {
            try await coordinator.handle(CredentialImportActivity(activityType: "other", userInfo: [:]))
        }
        await #expect(throws: CredentialImportError.intake(.malformedToken)) {
            try await coordinator.handle(
                CredentialImportActivity(
                    activityType: SimulatedCredentialExporter.intake.activityType,
                    userInfo: [
                        SimulatedCredentialExporter.intake.tokenKey: .string("nope")
                    ]))
        }
        #expect(ledger.markCount == 0)
        #expect(recorder.recorded == [.failed(.intake(.wrongActivityType)), .failed(.intake(.malformedToken))])
    }
}
