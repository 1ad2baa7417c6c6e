import SessionKitCore
import Testing

@testable import SessionKitHandoffs

/// The machine fed one event per line; each line's actions are compared as short strings.
@Suite struct AccessRequestMachineTests {
    typealias Machine = AccessRequestMachine<Int>

    private static let request = AccessRequest(reference: AccessRequestReference("r"))
    private static let granted = AccessRequestCompletion(
        completed: true,
        returnedItems: [
            AccessRequestReturnedItem(attachments: [
                AccessRequestAttachment(
                    typeIdentifiers: [AccessGrant.typeIdentifier], data: Fixtures.grant(resolved: #"[{"reference":"x"}]"#))
            ])
        ])

    private func lines(_ actions: [Machine.Action]) -> [String] {
        actions.map { action in
            switch action {
            case .present(_, let attempt, _): "present(\(attempt))"
            case .cancelPresentation(let attempt, _): "cancelPresentation(\(attempt))"
            case .startTimer(let attempt, let duration, _): "startTimer(\(attempt), \(duration))"
            case .cancelTimer(let attempt, _): "cancelTimer(\(attempt))"
            case .resume(let waiter, .success(let outcome)): "resume(\(waiter), \(outcome))"
            case .resume(let waiter, .failure(let error)): "resume(\(waiter), error: \(error))"
            case .emit(let event): "emit(\(event))"
            }
        }
    }

    @Test func presentsThenResumesWithTheOutcome() {
        var machine = Machine(timeout: nil)
        #expect(lines(machine.start(Self.request, attempt: 1, waiter: 10)) == ["emit(presented)", "present(1)"])
        #expect(machine.isPresenting)
        #expect(
            lines(machine.presenterCompleted(Self.granted, attempt: 1)) == ["emit(granted (1 entry))", "resume(10, granted (1 entry))"])
        #expect(!machine.isPresenting)
    }

    @Test func aSecondRequestIsMisuseAndLeavesTheFirstAlone() {
        var machine = Machine(timeout: .seconds(60))
        _ = machine.start(Self.request, attempt: 1, waiter: 10)
        #expect(
            lines(machine.start(Self.request, attempt: 2, waiter: 20)) == ["resume(20, error: an access request is already in progress)"])
        // The misusing caller's cancellation does not end the first request.
        #expect(lines(machine.callerCancelled(attempt: 2)).isEmpty)
        #expect(machine.isPresenting)
        #expect(
            lines(machine.presenterCompleted(.init(completed: false), attempt: 1)) == [
                "cancelTimer(1)", "emit(cancelled: closed without a choice)", "resume(10, cancelled)",
            ])
    }

    @Test func theTimeoutDismissesTheSheet() {
        var machine = Machine(timeout: .seconds(60))
        #expect(
            lines(machine.start(Self.request, attempt: 1, waiter: 10)) == ["emit(presented)", "present(1)", "startTimer(1, 60.0 seconds)"])
        #expect(
            lines(machine.timerFired(attempt: 1)) == [
                "cancelPresentation(1)", "emit(cancelled: timed out)", "resume(10, error: the access request timed out)",
            ])
        // The dismissed presentation's late answer is a harmless race.
        #expect(lines(machine.presenterCompleted(Self.granted, attempt: 1)).isEmpty)
        #expect(lines(machine.presenterFailed(.cancelled, attempt: 1)).isEmpty)
    }

    @Test func cancellingTheCallerCancelsThePresentation() {
        var machine = Machine(timeout: .seconds(60))
        _ = machine.start(Self.request, attempt: 1, waiter: 10)
        #expect(
            lines(machine.callerCancelled(attempt: 1)) == [
                "cancelTimer(1)", "cancelPresentation(1)", "emit(cancelled: task cancelled)",
                "resume(10, error: the access request was cancelled)",
            ])
        #expect(lines(machine.timerFired(attempt: 1)).isEmpty)
        #expect(lines(machine.callerCancelled(attempt: 1)).isEmpty)
    }

    @Test func presenterFailuresEndTheAttempt() {
        var machine = Machine(timeout: nil)
        _ = machine.start(Self.request, attempt: 1, waiter: 10)
        #expect(
            lines(machine.presenterFailed(.unavailable("no window"), attempt: 1)) == [
                "emit(presentation failed)", "resume(10, error: the access request could not be presented: no window)",
            ])
        _ = machine.start(Self.request, attempt: 2, waiter: 11)
        #expect(
            lines(machine.presenterFailed(.cancelled, attempt: 2)) == ["emit(cancelled: closed without a choice)", "resume(11, cancelled)"])
    }

    @Test func aNewRequestCanStartOnceTheLastEnded() {
        var machine = Machine(timeout: nil)
        _ = machine.start(Self.request, attempt: 1, waiter: 10)
        _ = machine.presenterCompleted(.init(completed: true), attempt: 1)
        #expect(lines(machine.start(Self.request, attempt: 2, waiter: 11)) == ["emit(presented)", "present(2)"])
    }

    /// The cancel token an action carries, by identity.
    private func token(_ action: Machine.Action) -> ObjectIdentifier? {
        switch action {
        case .present(_, _, let token), .cancelPresentation(_, let token), .startTimer(_, _, let token), .cancelTimer(_, let token):
            ObjectIdentifier(token)
        case .resume, .emit:
            nil
        }
    }

    @Test func theCancelActionsHandBackTheTokensTheWorkStartedWith() {
        var machine = Machine(timeout: .seconds(60))
        let started = machine.start(Self.request, attempt: 1, waiter: 10).compactMap(token)
        let ended = machine.callerCancelled(attempt: 1).compactMap(token)
        #expect(started.count == 2)
        #expect(Set(started).count == 2)  // the presentation and the timer each have their own
        #expect(Set(ended) == Set(started))
    }

    @Test func shuttingDownAnswersTheCallerEndsItsWorkAndRefusesLaterRequests() {
        var machine = Machine(timeout: .seconds(60))
        let started = machine.start(Self.request, attempt: 1, waiter: 10)
        let stopping = machine.shutDown()
        #expect(
            lines(stopping) == [
                "cancelTimer(1)", "cancelPresentation(1)", "emit(cancelled: shut down)",
                "resume(10, error: the access request handoff was shut down)",
            ])
        #expect(Set(stopping.compactMap(token)) == Set(started.compactMap(token)))
        #expect(!machine.isPresenting)
        #expect(
            lines(machine.start(Self.request, attempt: 2, waiter: 20)) == ["resume(20, error: the access request handoff was shut down)"])
        // What the ended work reports late, and a second shutdown, are harmless.
        #expect(lines(machine.presenterCompleted(Self.granted, attempt: 1)).isEmpty)
        #expect(lines(machine.timerFired(attempt: 1)).isEmpty)
        #expect(lines(machine.shutDown()).isEmpty)
    }

    @Test func shuttingDownWhileIdleOnlyRefusesLaterRequests() {
        var machine = Machine(timeout: nil)
        #expect(lines(machine.shutDown()).isEmpty)
        #expect(
            lines(machine.start(Self.request, attempt: 1, waiter: 10)) == ["resume(10, error: the access request handoff was shut down)"])
    }
}
