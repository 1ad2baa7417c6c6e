import Foundation
import SessionKit
import SessionKitCore
import Testing

@testable import SessionKitHandoffs

/// The import machine fed one event per line; each line's actions are compared as short strings.
@Suite struct CredentialImportMachineTests {
    typealias Machine = CredentialImportMachine<Int>

    private static let tokenA = CredentialImportToken(UUID(uuidString: "00000000-0000-4000-8000-00000000000A")!)
    private static let tokenB = CredentialImportToken(UUID(uuidString: "00000000-0000-4000-8000-00000000000B")!)
    private static let document = CXFDocument(
        version: .v1, exporterRelyingPartyID: "e", exporterDisplayName: "E", timestamp: Date(timeIntervalSince1970: 0), accounts: [])

    private func lines(_ actions: [Machine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .markUsed(let token, let attempt): "markUsed(\(name(token)), \(attempt))"
            case .startImport(let token, let attempt, _): "startImport(\(name(token)), \(attempt))"
            case .cancelImport(let attempt, _): "cancelImport(\(attempt))"
            case .startTimer(let attempt, let duration, _): "startTimer(\(attempt), \(duration.components.seconds)s)"
            case .cancelTimer(let attempt, _): "cancelTimer(\(attempt))"
            case .resume(let waiters, .success): "resume(\(waiters), document)"
            case .resume(let waiters, .failure(let error)): "resume(\(waiters), \(error))"
            case .emit(let event): "emit(\(event))"
            }
        }
    }

    private func name(_ token: CredentialImportToken) -> String {
        token == Self.tokenA ? "A" : token == Self.tokenB ? "B" : "?"
    }

    @Test func marksBeforeImportingThenResumes() {
        var machine = Machine(timeout: .seconds(30))
        #expect(lines(machine.requested(Self.tokenA, caller: 1, waiter: 10)) == ["emit(import started)", "markUsed(A, 1)"])
        #expect(lines(machine.ledgerAnswered(.success(true), attempt: 1)) == ["startImport(A, 1)", "startTimer(1, 30s)"])
        #expect(
            lines(machine.importFinished(.success(Self.document), attempt: 1)) == [
                "cancelTimer(1)", "emit(imported 0 accounts, 0 items: no typed credentials; 0 opaque, 0 undecodable, 0 leniencies)",
                "resume([10], document)",
            ])
        #expect(machine.running == nil)
    }

    @Test func aTokenAlreadyInTheLedgerIsRefusedWithoutImporting() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        #expect(
            lines(machine.ledgerAnswered(.success(false), attempt: 1)) == [
                "emit(refused: the token was already used)", "resume([10], the import token was already used)",
            ])
    }

    @Test func aLedgerFailureImportsNothing() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        let actions = lines(machine.ledgerAnswered(.failure(.noSpace), attempt: 1))
        #expect(actions.count == 2)
        #expect(actions.allSatisfy { !$0.hasPrefix("startImport") })
        #expect(actions.last?.hasPrefix("resume([10], the import token ledger failed") == true)
    }

    @Test func aSecondDeliveryOfTheSameTokenJoins() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        #expect(lines(machine.requested(Self.tokenA, caller: 2, waiter: 20)) == ["emit(joined the import in progress)"])
        _ = machine.ledgerAnswered(.success(true), attempt: 1)
        #expect(lines(machine.requested(Self.tokenA, caller: 3, waiter: 30)) == ["emit(joined the import in progress)"])
        #expect(
            lines(machine.importFinished(.failure(.timedOut), attempt: 1)) == [
                "emit(failed: the import timed out)", "resume([10, 20, 30], the import timed out)",
            ])
    }

    @Test func differentTokensRunOneAfterTheOther() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        #expect(lines(machine.requested(Self.tokenB, caller: 2, waiter: 20)) == ["emit(queued behind the import in progress)"])
        #expect(lines(machine.requested(Self.tokenB, caller: 3, waiter: 30)) == ["emit(joined the import in progress)"])
        #expect(machine.queuedCount == 1)
        _ = machine.ledgerAnswered(.success(true), attempt: 1)
        #expect(
            lines(machine.importFinished(.success(Self.document), attempt: 1)).suffix(3) == [
                "resume([10], document)", "emit(import started)", "markUsed(B, 2)",
            ])
        #expect(
            lines(machine.ledgerAnswered(.success(false), attempt: 2)) == [
                "emit(refused: the token was already used)", "resume([20, 30], the import token was already used)",
            ])
    }

    @Test func theTimeoutCancelsTheImport() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        _ = machine.ledgerAnswered(.success(true), attempt: 1)
        #expect(
            lines(machine.timerFired(attempt: 1)) == [
                "cancelImport(1)", "emit(failed: the import timed out)", "resume([10], the import timed out)",
            ])
        // Late answers for the ended attempt are harmless races.
        #expect(lines(machine.importFinished(.success(Self.document), attempt: 1)).isEmpty)
        #expect(lines(machine.timerFired(attempt: 1)).isEmpty)
        #expect(lines(machine.ledgerAnswered(.success(true), attempt: 1)).isEmpty)
    }

    @Test func cancellingOneOfTwoCallersKeepsTheImport() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        _ = machine.requested(Self.tokenA, caller: 2, waiter: 20)
        _ = machine.ledgerAnswered(.success(true), attempt: 1)
        #expect(lines(machine.callerCancelled(1)) == ["resume([10], the import was cancelled)"])
        #expect(
            lines(machine.callerCancelled(2)) == [
                "resume([20], the import was cancelled)", "cancelImport(1)", "cancelTimer(1)", "emit(abandoned: every caller cancelled)",
            ])
        #expect(machine.running == nil)
        #expect(lines(machine.callerCancelled(2)).isEmpty)
    }

    @Test func cancellingWhileMarkingAbandonsOnceTheMarkLands() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        _ = machine.requested(Self.tokenB, caller: 2, waiter: 20)
        #expect(lines(machine.callerCancelled(1)) == ["resume([10], the import was cancelled)"])
        #expect(
            lines(machine.ledgerAnswered(.success(true), attempt: 1)) == [
                "emit(abandoned: every caller cancelled)", "emit(import started)", "markUsed(B, 2)",
            ])
    }

    @Test func cancellingAQueuedCallerDropsItsEmptyJob() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        _ = machine.requested(Self.tokenB, caller: 2, waiter: 20)
        #expect(lines(machine.callerCancelled(2)) == ["resume([20], the import was cancelled)"])
        #expect(machine.queuedCount == 0)
        _ = machine.ledgerAnswered(.success(true), attempt: 1)
        #expect(lines(machine.importFinished(.success(Self.document), attempt: 1)).last == "resume([10], document)")
    }

    /// The cancel token an action carries, by identity.
    private func token(_ action: Machine.Action) -> ObjectIdentifier? {
        switch action {
        case .startImport(_, _, let token), .cancelImport(_, let token), .startTimer(_, _, let token), .cancelTimer(_, let token):
            ObjectIdentifier(token)
        case .markUsed, .resume, .emit:
            nil
        }
    }

    @Test func theCancelActionsHandBackTheTokensTheWorkStartedWith() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        let started = machine.ledgerAnswered(.success(true), attempt: 1).compactMap(token)
        #expect(Set(started).count == 2)
        #expect(Set(machine.callerCancelled(1).compactMap(token)) == Set(started))
    }

    @Test func shuttingDownAnswersEveryCallerRunningOrQueuedAndRefusesLaterOnes() {
        var machine = Machine(timeout: .seconds(30))
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        _ = machine.requested(Self.tokenA, caller: 2, waiter: 20)
        _ = machine.requested(Self.tokenB, caller: 3, waiter: 30)
        let started = machine.ledgerAnswered(.success(true), attempt: 1)
        let stopping = machine.shutDown()
        #expect(
            lines(stopping) == [
                "cancelImport(1)", "cancelTimer(1)", "emit(failed: the import coordinator was shut down)",
                "resume([10, 20, 30], the import coordinator was shut down)",
            ])
        #expect(Set(stopping.compactMap(token)) == Set(started.compactMap(token)))
        #expect(machine.running == nil)
        #expect(machine.queuedCount == 0)
        #expect(lines(machine.requested(Self.tokenB, caller: 4, waiter: 40)) == ["resume([40], the import coordinator was shut down)"])
        // What the ended work reports late, a late cancellation and a second shutdown are harmless.
        #expect(lines(machine.importFinished(.success(Self.document), attempt: 1)).isEmpty)
        #expect(lines(machine.timerFired(attempt: 1)).isEmpty)
        #expect(lines(machine.callerCancelled(1)).isEmpty)
        #expect(lines(machine.shutDown()).isEmpty)
    }

    @Test func shuttingDownWhileMarkingLetsTheLedgerWriteEndOnItsOwn() {
        var machine = Machine(timeout: nil)
        _ = machine.requested(Self.tokenA, caller: 1, waiter: 10)
        #expect(
            lines(machine.shutDown()) == [
                "emit(failed: the import coordinator was shut down)", "resume([10], the import coordinator was shut down)",
            ])
        #expect(lines(machine.ledgerAnswered(.success(true), attempt: 1)).isEmpty)
    }
}
