import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct SimulatedCredentialExporterTests {
    let clock = TestClock()

    @Test func servesEachTokenOnce() async throws {
        let exporter = SimulatedCredentialExporter(clock: clock)
        let token = exporter.offer(.serve([1, 2, 3]))
        #expect(try await exporter.importCredentials(token: token).bytes == [1, 2, 3])
        await #expect(throws: CredentialImporterError.failed("SimulatedCredentialExporter: token already consumed")) {
            try await exporter.importCredentials(token: token)
        }
        await #expect(throws: CredentialImporterError.failed("SimulatedCredentialExporter: unknown token")) {
            try await exporter.importCredentials(token: Fixtures.token)
        }
        #expect(
            exporter.log.map(\.description) == [
                "token #1: serve 3 bytes", "token #1: token already consumed", "token unknown: unknown token",
            ])
    }

    @Test func tokensAreDeterministicAndTheActivityCarriesThem() throws {
        let exporter = SimulatedCredentialExporter(clock: clock)
        let first = exporter.offer(.fail("x"))
        let second = exporter.offer(.fail("y"))
        #expect(first.uuid.uuidString == "00000000-0000-4000-8000-000000000001")
        #expect(second.uuid.uuidString == "00000000-0000-4000-8000-000000000002")
        #expect(try SimulatedCredentialExporter.intake.token(from: exporter.activity(for: second)) == second)
    }

    @Test func failsHangsAndAnswersLater() async throws {
        let exporter = SimulatedCredentialExporter(clock: clock)
        await #expect(throws: CredentialImporterError.failed("gone")) {
            try await exporter.importCredentials(token: exporter.offer(.fail("gone")))
        }
        let hanging = exporter.offer(.hang)
        let waiting = Task { try await exporter.importCredentials(token: hanging) }
        await exporter.waitForHangingImports()
        waiting.cancel()
        await #expect(throws: CredentialImporterError.cancelled) { try await waiting.value }
        let later = exporter.offer(.after(.seconds(3), .serve([9])))
        let delayed = Task { try await exporter.importCredentials(token: later) }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(3))
        #expect(try await delayed.value.bytes == [9])
    }

    @Test func theSampleIsValidCXFInTheVersionAsked() throws {
        let v2 = CXFVersion(major: 2, minor: 0)
        #expect(try CXFDocument.decode(SimulatedCXFDocument.sample().jsonBytes()).summary.items == 5)
        #expect(throws: CXFDecodingError.unsupportedVersion(found: v2, supported: [.v1])) {
            try CXFDocument.decode(SimulatedCXFDocument.sample(version: v2).jsonBytes())
        }
        #expect(try CXFDocument.decode(SimulatedCXFDocument.sample(version: v2).jsonBytes(), supportedVersions: [v2]).version == v2)
    }
}
