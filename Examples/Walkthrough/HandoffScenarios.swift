import Foundation
import SessionKit
import SessionKitHandoffs
import SessionKitTesting

/// The other two app-to-app handoffs: 1Password access requests and credential-exchange import,
/// against the test kit's simulated 1Password and exporter, in the same simulated time.
extension Scenario {
    /// A reference as the app's server would hand it out; never printed.
    private static let reference = AccessRequestReference("walkthrough-access-request-reference")

    private static func accessHandoff(
        _ env: SimulatedSessionEnvironment, _ say: Narrator, _ answers: SimulatedOnePasswordAnswer...
    ) async -> (AccessRequestHandoff<TestClock>, SimulatedOnePassword) {
        let onePassword = SimulatedOnePassword(clock: env.clock, answers: answers)
        let handoff = AccessRequestHandoff(presenter: onePassword, clock: env.clock, timeout: .seconds(600))
        handoff.addObserver { [clock = env.clock] event in say.note("event: \(event)", at: clock.wallClockNow()) }
        return (handoff, onePassword)
    }

    static let accessGranted = Scenario(
        name: "access-granted", summary: "1Password grants: entries matched by entryId, plus an extra login"
    ) {
        env, say in
        let (handoff, _) = await accessHandoff(
            env, say,
            .after(
                .seconds(20),
                .grant([
                    .init(entryID: "aws-prod", reference: "walkthrough-credential-aws"), .extra("walkthrough-credential-extra"),
                    .init(entryID: "github", reference: "walkthrough-credential-github"),
                ])))
        say.note("app asks 1Password for the entries github and aws-prod through the share sheet", at: env.clock.wallClockNow())
        let request = Task { try await handoff.request(reference) }
        await env.clock.waitForSleepers(count: 2)
        env.clock.advance(by: .seconds(20))
        let outcome = try await request.value
        guard case .granted(let grant) = outcome else {
            say.note("unexpected: \(outcome)", at: env.clock.wallClockNow())
            return
        }
        let match = grant.match(requestedEntryIDs: ["github", "aws-prod"])
        say.note(
            "1Password answered in another order; matched by entryId: github \(match["github"] != nil ? "granted" : "missing"), "
                + "aws-prod \(match["aws-prod"] != nil ? "granted" : "missing"); \(match.extraLogins.count) extra login",
            at: env.clock.wallClockNow())
    }

    static let accessDeclined = Scenario(name: "access-declined", summary: "the person declines: no automatic retry") { env, say in
        let (handoff, onePassword) = await accessHandoff(env, say, .decline)
        say.note("app presents the access request", at: env.clock.wallClockNow())
        let outcome = try await handoff.request(reference)
        say.note(
            "outcome \(outcome); retry policy \(outcome.retryPolicy) (automatic retry allowed: \(outcome.retryPolicy.allowsAutomaticRetry))",
            at: env.clock.wallClockNow())
        say.note("1Password was shown \(onePassword.log.count) request", at: env.clock.wallClockNow())
    }

    static let accessRetryLater = Scenario(name: "access-retry-later", summary: "internal error, presented again unchanged later, granted")
    {
        env, say in
        let (handoff, onePassword) = await accessHandoff(
            env, say, .fail(.internalError), .grant([.init(entryID: "github", reference: "walkthrough-credential-github")]))
        say.note("app presents the access request", at: env.clock.wallClockNow())
        let first = try await handoff.request(reference)
        say.note("outcome \(first); retry policy \(first.retryPolicy)", at: env.clock.wallClockNow())
        env.clock.advance(by: .seconds(300))
        say.note("five minutes later the app presents the same reference again", at: env.clock.wallClockNow())
        let second = try await handoff.request(reference)
        say.note("outcome \(second)", at: env.clock.wallClockNow())
        let same = onePassword.log.last?.sameReferenceAsPrevious == true
        say.note("1Password saw the same reference both times: \(same ? "yes" : "no")", at: env.clock.wallClockNow())
    }

    static let accessClosed = Scenario(name: "access-closed", summary: "the share sheet is closed without choosing 1Password") { env, say in
        let (handoff, _) = await accessHandoff(env, say, .after(.seconds(8), .closeWithoutChoosing))
        say.note("app presents the access request; the person looks at the sheet and closes it", at: env.clock.wallClockNow())
        let request = Task { try await handoff.request(reference) }
        await env.clock.waitForSleepers(count: 2)
        env.clock.advance(by: .seconds(8))
        let outcome = try await request.value
        say.note("outcome \(outcome) (no items, no error); retry policy \(outcome.retryPolicy)", at: env.clock.wallClockNow())
    }

    private static func importCoordinator(
        _ env: SimulatedSessionEnvironment, _ say: Narrator, exporter: SimulatedCredentialExporter, ledger: any ImportTokenLedger
    ) async -> CredentialImportCoordinator<TestClock> {
        let coordinator = CredentialImportCoordinator(
            importer: exporter, ledger: ledger, intake: SimulatedCredentialExporter.intake, clock: env.clock, timeout: .seconds(120))
        coordinator.addObserver { [clock = env.clock] event in say.note("event: \(event)", at: clock.wallClockNow()) }
        return coordinator
    }

    static let credentialImport = Scenario(name: "credential-import", summary: "import once; the same token refused, also after a relaunch")
    {
        env, say in
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("walkthrough-import-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let exporter = SimulatedCredentialExporter(clock: env.clock)
        let token = exporter.offer(.after(.seconds(2), .serve(SimulatedCXFDocument.sample().jsonBytes())))
        let coordinator = await importCoordinator(env, say, exporter: exporter, ledger: FileImportTokenLedger(directory: directory))
        say.note("the system launches the app with a credential-exchange activity", at: env.clock.wallClockNow())
        let importing = Task { try await coordinator.handle(exporter.activity(for: token)) }
        await env.clock.waitForSleepers(count: 2)
        env.clock.advance(by: .seconds(2))
        let document = try await importing.value
        say.note("imported from \(document.exporterDisplayName), format \(document.version)", at: env.clock.wallClockNow())
        say.note("the same activity is delivered again", at: env.clock.wallClockNow())
        if case .failure(let error) = await Result(catching: { try await coordinator.handle(exporter.activity(for: token)) }) {
            say.note("handle() threw: \(error)", at: env.clock.wallClockNow())
        }
        env.clock.advance(by: .seconds(60))
        say.note("the app is killed and relaunched; a new coordinator opens the same ledger file", at: env.clock.wallClockNow())
        let relaunched = await importCoordinator(env, say, exporter: exporter, ledger: FileImportTokenLedger(directory: directory))
        if case .failure(let error) = await Result(catching: { try await relaunched.handle(exporter.activity(for: token)) }) {
            say.note("handle() threw: \(error)", at: env.clock.wallClockNow())
        }
        say.note("the exporter was asked \(exporter.log.count) time", at: env.clock.wallClockNow())
    }

    static let importVersion = Scenario(name: "import-version", summary: "credential data in a version the app does not declare") {
        env, say in
        let exporter = SimulatedCredentialExporter(clock: env.clock)
        let version = CXFVersion(major: 2, minor: 0)
        let token = exporter.offer(.serve(SimulatedCXFDocument.sample(version: version).jsonBytes()))
        let coordinator = await importCoordinator(env, say, exporter: exporter, ledger: InMemoryImportTokenLedger())
        say.note(
            "the app declares format versions \(coordinator.supportedVersions.map(\.description)); the exporter writes \(version)",
            at: env.clock.wallClockNow())
        if case .failure(let error) = await Result(catching: { try await coordinator.handle(exporter.activity(for: token)) }) {
            say.note("handle() threw: \(error)", at: env.clock.wallClockNow())
        }
    }

    static let accessDeclinedBridged = Scenario(
        name: "access-declined-bridged", summary: "1Password's own error enum, bridged to NSError, read as a decline by default"
    ) {
        env, say in
        let bridged = SimulatedOnePassword.bridgedError(.declined)
        let (handoff, _) = await accessHandoff(env, say, .failBridged(domain: bridged.domain, code: bridged.code))
        say.note(
            "the extension fails with OnePasswordAccessRequestError.declined; the share sheet hands over NSError "
                + "(\(bridged.domain), \(bridged.code))",
            at: env.clock.wallClockNow())
        let outcome = try await handoff.request(reference)
        say.note(
            "the default error table reads it: outcome \(outcome), retry policy \(outcome.retryPolicy) "
                + "(automatic retry allowed: \(outcome.retryPolicy.allowsAutomaticRetry))",
            at: env.clock.wallClockNow())
    }

    static let importPartial = Scenario(
        name: "import-partial", summary: "one bad credential in an export: kept whole with its reason, the rest imported"
    ) {
        env, say in
        let exporter = SimulatedCredentialExporter(clock: env.clock)
        var data = SimulatedCXFDocument.sample()
        // A passkey without its private key, and a password typed `string` (accepted, noted).
        let broken =
            #"{"type":"passkey","credentialId":"Y3JlZA","rpId":"example.com","username":"alice","userDisplayName":"Alice","userHandle":"dQ"}"#
        let lenient = #"{"type":"basic-auth","password":{"fieldType":"string","value":"walkthrough-password"}}"#
        data.items.insert(.init(title: "Broken passkey", credentials: [.raw(broken)]), at: 1)
        data.items.append(.init(title: "Loosely typed login", credentials: [.raw(lenient)]))
        let token = exporter.offer(.serve(data.jsonBytes()))
        let coordinator = await importCoordinator(env, say, exporter: exporter, ledger: InMemoryImportTokenLedger())
        say.note("the exporter's data holds \(data.items.count) items; one passkey has no key", at: env.clock.wallClockNow())
        let document = try await coordinator.handle(exporter.activity(for: token))
        let imported = document.accounts.flatMap(\.items).filter { item in
            !item.credentials.contains { if case .undecodable = $0 { true } else { false } }
        }
        say.note("imported \(imported.count) items whole: \(imported.map(\.title).joined(separator: ", "))", at: env.clock.wallClockNow())
        for entry in document.allUndecodable {
            say.note("kept for the app, not lost: \(entry)", at: env.clock.wallClockNow())
        }
        for leniency in document.leniencies {
            say.note("accepted and noted: \(leniency)", at: env.clock.wallClockNow())
        }
    }
}
