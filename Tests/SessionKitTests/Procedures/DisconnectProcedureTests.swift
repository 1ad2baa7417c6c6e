import Foundation
import Testing

@testable import SessionKit

/// Every branch of one account-deletion attempt, one input per line.
@Suite("Disconnect procedure")
struct DisconnectProcedureTests {
    typealias F = ProcedureFixtures
    typealias Procedure = DisconnectProcedure<PlannedTokens>

    private func make(endpoint: Bool = true, deviceKeys: Bool = true) -> Procedure {
        Procedure(hasDisconnectEndpoint: endpoint, hasDeviceKeySource: deviceKeys, timing: RefreshTiming(leadTime: .seconds(Int(F.lead))))
    }

    private func line(_ step: Procedure.Step) -> String {
        switch step {
        case .journal: "journal"
        case .reportNotJournaled(let error): "reportNotJournaled(\(error.code))"
        case .clearJournal: "clearJournal"
        case .refresh: "refresh"
        case .requestDeviceKey(let accessToken): "deviceKey(\(accessToken.value.isEmpty ? "no access token" : accessToken.value))"
        case .disconnect(let key): "disconnect(\(key.value))"
        case .wipe: "wipe"
        case .resetDeviceCredential: "resetDevice"
        case .finish(let outcome): "finish(\(outcome))"
        }
    }

    /// Journaled with a session whose access token is fresh: the next step asks for a device key.
    private func journaled(_ session: StoredSession = F.session("RT-1")) -> Procedure {
        var p = make()
        _ = p.start()
        _ = p.journaled(.journaled(session), now: F.now)
        return p
    }

    @Test func theHappyPathJournalsDisconnectsWipesAndResets() {
        var p = make()
        #expect(line(p.start()) == "journal")
        #expect(line(p.journaled(.journaled(F.session("RT-1")), now: F.now)) == "deviceKey(AT-RT-1)")
        #expect(line(p.deviceKeyAnswered(.success(Secret("DK")))) == "disconnect(DK)")
        #expect(line(p.disconnectAnswered(.success(()))) == "wipe")
        #expect(line(p.wiped(.success(()))) == "resetDevice")
        #expect(line(p.deviceCredentialReset()) == "finish(confirmed(subject: Optional(\"alice\")))")
    }

    @Test func aStoreThatCannotBeReadStopsBeforeTheProviderIsAsked() {
        var p = make()
        _ = p.start()
        #expect(
            line(p.journaled(.unreadable(.corrupted("bad")), now: F.now))
                == "finish(storage(SessionKitCore.CredentialStoreError.corrupted(\"bad\")))")
    }

    @Test func aJournalThatCannotBeWrittenIsReportedAndTheDeletionGoesOnWithoutClearingIt() {
        var p = make()
        _ = p.start()
        #expect(line(p.journaled(.notJournaled(F.session("RT-1"), .noSpace), now: F.now)) == "reportNotJournaled(no_space)")
        #expect(line(p.reportedNotJournaled(now: F.now)) == "deviceKey(AT-RT-1)")
        #expect(line(p.deviceKeyAnswered(.success(Secret("DK")))) == "disconnect(DK)")
        // A refusal ends it at once: there is no journal entry to clear.
        let forbidden = ProviderError.http(status: 403, error: nil, retryAfterSeconds: nil, excerpt: "")
        #expect(line(p.disconnectAnswered(.failure(forbidden))) == "finish(refused(status: 403))")
    }

    @Test func aJournalThatCannotBeClearedLeavesTheOutcomeAsItWas() {
        var p = make(endpoint: false)
        _ = p.start()
        #expect(line(p.journaled(.journaled(F.session("RT-1")), now: F.now)) == "clearJournal")
        #expect(line(p.journalCleared(.failure(.noSpace))) == "finish(cannotTell(the provider offers no app disconnect))")
    }

    @Test func withoutADisconnectEndpointOrADeviceKeySourceTheProviderCannotBeToldAndTheReasonSaysWhich() {
        var noEndpoint = make(endpoint: false)
        _ = noEndpoint.start()
        #expect(line(noEndpoint.journaled(.journaled(F.session("RT-1")), now: F.now)) == "clearJournal")
        #expect(line(noEndpoint.journalCleared(.success(()))) == "finish(cannotTell(the provider offers no app disconnect))")

        var noKeys = make(deviceKeys: false)
        _ = noKeys.start()
        _ = noKeys.journaled(.journaled(F.session("RT-1")), now: F.now)
        guard case .finish(.cannotTell(let why)) = noKeys.journalCleared(.success(())) else {
            Issue.record("expected cannotTell")
            return
        }
        #expect(why == .deviceKey)
    }

    @Test func nothingStoredCannotBeDisconnected() {
        var p = make()
        _ = p.start()
        #expect(line(p.journaled(.journaled(nil), now: F.now)) == "clearJournal")
        #expect(line(p.journalCleared(.success(()))) == "finish(cannotTell(no stored session to disconnect))")
    }

    @Test(arguments: [nil, 30.0])
    func aMissingOrDueAccessTokenIsRefreshedFirst(expiresIn: Double?) {
        var session = F.session("RT-1", expiresIn: expiresIn ?? 3600)
        if expiresIn == nil { session.accessToken = nil }
        var p = make()
        _ = p.start()
        #expect(line(p.journaled(.journaled(session), now: F.now)) == "refresh")
        #expect(line(p.refreshed(.refreshed(F.tokens("B", refresh: "RT-2")))) == "deviceKey(AT-RT-2)")
    }

    @Test func aRefreshTheProviderRefusesMeansTheDisconnectAlreadyHappened() {
        var p = make()
        _ = p.start()
        _ = p.journaled(.journaled(F.session("RT-1", expiresIn: 10)), now: F.now)
        #expect(line(p.refreshed(.refreshTokenRejected(F.invalidGrant))) == "wipe")
    }

    @Test func aRefreshThatFailsIsClassifiedLikeAnyDisconnectAnswer() {
        var transient = make()
        _ = transient.start()
        _ = transient.journaled(.journaled(F.session("RT-1", expiresIn: 10)), now: F.now)
        #expect(
            line(transient.refreshed(.providerFailed(F.unavailable)))
                == "finish(transient(SessionKit.ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: \"\")))")

        var stored = make()
        _ = stored.start()
        _ = stored.journaled(.journaled(F.session("RT-1", expiresIn: 10)), now: F.now)
        #expect(line(stored.refreshed(.storageFailed(.noSpace))) == "finish(storage(SessionKitCore.CredentialStoreError.noSpace))")

        var rejected = make()
        _ = rejected.start()
        _ = rejected.journaled(.journaled(F.session("RT-1", expiresIn: 10)), now: F.now)
        #expect(line(rejected.refreshed(.idTokenRejected(.badSignature))) == "clearJournal")

        var gone = make()
        _ = gone.start()
        _ = gone.journaled(.journaled(F.session("RT-1", expiresIn: 10)), now: F.now)
        #expect(line(gone.refreshed(.notSignedIn)) == "clearJournal")
    }

    @Test func aRevokedAccessTokenIsRefreshedOnceAndTheKeyAskedForAgain() {
        var p = journaled()
        #expect(line(p.deviceKeyAnswered(.failure(F.unauthorized))) == "refresh")
        #expect(line(p.refreshed(.refreshed(F.tokens("B", refresh: "RT-2")))) == "deviceKey(AT-RT-2)")
        // A second 401 after the refresh is the provider's refusal.
        #expect(line(p.deviceKeyAnswered(.failure(F.unauthorized))) == "clearJournal")
        #expect(line(p.journalCleared(.success(()))) == "finish(refused(status: 401))")
    }

    @Test func aDeviceKeyFailureThatMayPassIsRetriedLater() {
        var p = journaled()
        #expect(
            line(p.deviceKeyAnswered(.failure(.transport(.timedOut))))
                == "finish(transient(SessionKit.ProviderError.transport(SessionKit.TransportError.timedOut)))")
    }

    @Test(arguments: [401, 403, 409])
    func aRefusedDisconnectClearsTheJournalAndKeepsTheCredentials(status: Int) {
        var p = journaled()
        _ = p.deviceKeyAnswered(.success(Secret("DK")))
        #expect(
            line(p.disconnectAnswered(.failure(.http(status: status, error: nil, retryAfterSeconds: nil, excerpt: "")))) == "clearJournal")
        #expect(line(p.journalCleared(.success(()))) == "finish(refused(status: \(status)))")
    }

    @Test(arguments: [429, 500, 503])
    func aDisconnectFailureThatMayPassKeepsTheJournal(status: Int) {
        var p = journaled()
        _ = p.deviceKeyAnswered(.success(Secret("DK")))
        guard
            case .finish(.transient(let error)) = p.disconnectAnswered(
                .failure(.http(status: status, error: nil, retryAfterSeconds: nil, excerpt: "")))
        else {
            Issue.record("expected a transient finish")
            return
        }
        #expect(error.status == status)
    }

    @Test func aWipeThatCannotBeWrittenIsAStorageFailure() {
        var p = journaled()
        _ = p.deviceKeyAnswered(.success(Secret("DK")))
        _ = p.disconnectAnswered(.success(()))
        #expect(line(p.wiped(.failure(.noSpace))) == "finish(storage(SessionKitCore.CredentialStoreError.noSpace))")
    }
}
