import Foundation
import SessionKit
import SessionKitCore
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct CredentialImportCoordinatorTests {
    let clock = TestClock()
    let exporter: SimulatedCredentialExporter
    let ledger = InMemoryImportTokenLedger()
    let recorder = EventRecorder<CredentialImportEvent>()
    /// Wakes waits whenever a coordinator made here steps or starts or ends a task.
    let signal = ChangeSignal()

    init() {
        exporter = SimulatedCredentialExporter(clock: clock)
    }

    private func makeCoordinator(
        ledger: (any ImportTokenLedger)? = nil, versions: [CXFVersion] = [.v1], timeout: Duration? = nil
    ) -> CredentialImportCoordinator<TestClock> {
        let coordinator = CredentialImportCoordinator(
            importer: exporter, ledger: ledger ?? self.ledger, intake: SimulatedCredentialExporter.intake, supportedVersions: versions,
            clock: clock, timeout: timeout)
        coordinator.addObserver { [recorder] in recorder.record($0) }
        signal.watch(coordinator.changes)
        return coordinator
    }

    private static let sample = SimulatedCXFDocument.sample().jsonBytes()

    @Test func importsOnceThenRefusesTheSameToken() async throws {
        let token = exporter.offer(.serve(Self.sample))
        let coordinator = makeCoordinator()
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
        let firstLaunch = makeCoordinator(ledger: FileImportTokenLedger(directory: directory))
        _ = try await firstLaunch.importCredentials(with: token)
        // A new process: a new coordinator and ledger over the same directory.
        let relaunched = makeCoordinator(ledger: FileImportTokenLedger(directory: directory))
        await #expect(throws: CredentialImportError.alreadyUsed) { try await relaunched.handle(exporter.activity(for: token)) }
        #expect(exporter.log.count == 1)
    }

    @Test func aSecondDeliveryWhileImportingJoins() async throws {
        let token = exporter.offer(.after(.seconds(5), .serve(Self.sample)))
        let coordinator = makeCoordinator()
        let events = coordinator.events()
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
        let coordinator = makeCoordinator()
        let events = coordinator.events()
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
        let coordinator = makeCoordinator()
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
        let coordinator = makeCoordinator(versions: [.v1, CXFVersion(major: 1, minor: 1)])
        #expect(try await coordinator.importCredentials(with: token).version == CXFVersion(major: 1, minor: 1))
        #expect(coordinator.supportedVersions == [.v1, CXFVersion(major: 1, minor: 1)])
    }

    @Test func dataThatIsNotTheFormatIsATypedErrorThatHandsTheDataOverOnce() async throws {
        let bytes = Array(#"{"version":{"major":1,"minor":0},"vault":["SECRET"]}"#.utf8)
        let token = exporter.offer(.serve(bytes))
        let coordinator = makeCoordinator()
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
        let coordinator = makeCoordinator()
        let events = coordinator.events()
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
        let coordinator = makeCoordinator(timeout: .seconds(120))
        let running = Task { try await coordinator.importCredentials(with: token) }
        await exporter.waitForHangingImports()
        await clock.waitForSleepers()
        clock.advance(by: .seconds(119))
        #expect(coordinator.isImporting)
        clock.advance(by: .seconds(1))
        await #expect(throws: CredentialImportError.timedOut) { try await running.value }
        // The import was cancelled with the timeout: its task ends, nothing is left hanging.
        await signal.wait { coordinator.liveTaskCount == 0 }
        #expect(exporter.hangingImportCount == 0)
    }

    @Test func cancellingTheOnlyCallerAbandonsTheImport() async throws {
        let token = exporter.offer(.hang)
        let coordinator = makeCoordinator()
        let running = Task { try await coordinator.importCredentials(with: token) }
        await exporter.waitForHangingImports()
        running.cancel()
        await #expect(throws: CredentialImportError.cancelled) { try await running.value }
        #expect(!(coordinator.isImporting))
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
        let coordinator = makeCoordinator()
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

    // MARK: - Cancelling one caller

    @Test func cancellingOneOfTwoJoinedCallersEndsOnlyItsWait() async throws {
        let token = exporter.offer(.after(.seconds(5), .serve(Self.sample)))
        let coordinator = makeCoordinator()
        let events = coordinator.events()
        let leaving = Task { try await coordinator.importCredentials(with: token) }
        await clock.waitForSleepers()
        let staying = Task { try await coordinator.importCredentials(with: token) }
        #expect(await waitFor(events) { $0 == .joined })
        leaving.cancel()
        await #expect(throws: CredentialImportError.cancelled) { try await leaving.value }
        #expect(coordinator.isImporting)
        #expect(coordinator.liveTaskCount == 1)
        clock.advance(by: .seconds(5))
        #expect(try await staying.value.summary.items == 5)
        #expect(!recorder.recorded.contains(.abandoned))
    }

    @Test func cancellingAQueuedCallerLeavesTheImportInProgress() async throws {
        let slow = exporter.offer(.after(.seconds(5), .serve(Self.sample)))
        let queued = exporter.offer(.serve(Self.sample))
        let coordinator = makeCoordinator()
        let events = coordinator.events()
        let running = Task { try await coordinator.importCredentials(with: slow) }
        await clock.waitForSleepers()
        let waiting = Task { try await coordinator.importCredentials(with: queued) }
        #expect(await waitFor(events) { $0 == .queued })
        waiting.cancel()
        await #expect(throws: CredentialImportError.cancelled) { try await waiting.value }
        #expect(coordinator.isImporting)
        clock.advance(by: .seconds(5))
        #expect(try await running.value.summary.items == 5)
        // The cancelled token never reached the ledger or the exporter.
        #expect(exporter.log.map(\.tokenNumber) == [1])
        #expect(ledger.markCount == 1)
    }

    // MARK: - Shutting down

    @Test func shutdownAnswersEveryWaitingCallerAndEndsTheImportAndTheTimer() async throws {
        let hanging = exporter.offer(.hang)
        let queued = exporter.offer(.serve(Self.sample))
        let coordinator = makeCoordinator(timeout: .seconds(120))
        let events = coordinator.events()
        let first = Task { try await coordinator.importCredentials(with: hanging) }
        await exporter.waitForHangingImports()
        await clock.waitForSleepers()
        let second = Task { try await coordinator.importCredentials(with: queued) }
        #expect(await waitFor(events) { $0 == .queued })
        #expect(coordinator.liveTaskCount == 2)  // the import and the timeout
        await coordinator.shutdown()
        // Every task ended before shutdown returned: the importer saw the cancellation, and the
        // timer's sleep is off the clock.
        #expect(coordinator.liveTaskCount == 0)
        #expect(exporter.hangingImportCount == 0)
        #expect(clock.sleeperCount == 0)
        await #expect(throws: CredentialImportError.shutDown) { try await first.value }
        await #expect(throws: CredentialImportError.shutDown) { try await second.value }
        #expect(!coordinator.isImporting)
        #expect(recorder.recorded.last == .failed(.shutDown))
        // The queued token never reached the exporter.
        #expect(exporter.log.map(\.tokenNumber) == [1])
    }

    @Test func aShutDownCoordinatorRefusesLaterImports() async throws {
        let token = exporter.offer(.serve(Self.sample))
        let coordinator = makeCoordinator(timeout: .seconds(120))
        await coordinator.shutdown()
        await #expect(throws: CredentialImportError.shutDown) { try await coordinator.handle(exporter.activity(for: token)) }
        #expect(ledger.markCount == 0)
        #expect(exporter.log.isEmpty)
        #expect(coordinator.liveTaskCount == 0)
        var events = coordinator.events().makeAsyncIterator()
        #expect(await events.next() == nil)
    }
}
