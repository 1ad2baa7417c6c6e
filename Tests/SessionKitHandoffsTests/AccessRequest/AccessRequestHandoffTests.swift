import SessionKitCore
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct AccessRequestHandoffTests {
    let clock = TestClock()
    let onePassword: SimulatedOnePassword
    let recorder = EventRecorder<AccessRequestEvent>()
    /// Wakes waits whenever a handoff made here steps or starts or ends a task.
    let signal = ChangeSignal()

    init() {
        onePassword = SimulatedOnePassword(clock: clock)
    }

    private func makeHandoff(timeout: Duration? = nil) -> AccessRequestHandoff<TestClock> {
        let handoff = AccessRequestHandoff(presenter: onePassword, clock: clock, timeout: timeout)
        handoff.addObserver { [recorder] in recorder.record($0) }
        signal.watch(handoff.changes)
        return handoff
    }

    private let reference = AccessRequestReference(Fixtures.reference)

    @Test func grantedEntriesMatchByEntryIDPlusAnExtraLogin() async throws {
        onePassword.enqueue(
            .grant(
                [
                    .init(entryID: "aws", reference: "r-aws"), .extra("r-extra"), .init(entryID: "github", reference: "r-github"),
                ]))
        let handoff = makeHandoff()
        let outcome = try await handoff.request(reference)
        guard case .granted(let grant) = outcome else {
            Issue.record("got \(outcome)")
            return
        }
        let match = grant.match(requestedEntryIDs: ["github", "aws"])
        #expect(match["github"]?.secret.value == "r-github")
        #expect(match["aws"]?.secret.value == "r-aws")
        #expect(match.extraLogins.map(\.secret.value) == ["r-extra"])
        #expect(recorder.recorded == [.presented, .granted(entries: 3)])
        #expect(onePassword.log.map(\.version) == [1])
        #expect(onePassword.log.first?.typeIdentifier == AccessRequest.typeIdentifier)
    }

    @Test(arguments: [SimulatedOnePasswordReferenceShape.object, .plainString])
    func eitherReferenceShapeGrantsTheSame(_ shape: SimulatedOnePasswordReferenceShape) async throws {
        onePassword.enqueue(.grant([.init(entryID: "a", reference: "r-a")], shape: shape))
        let outcome = try await makeHandoff().request(reference)
        #expect(outcome.grant?.resolved == [AccessGrant.Entry(entryID: "a", reference: CredentialReference("r-a"))])
    }

    @Test func declinedIsNotRetried() async throws {
        onePassword.enqueue(.decline)
        let outcome = try await makeHandoff().request(reference)
        #expect(outcome == .declined)
        #expect(outcome.retryPolicy == .doNotRetry)
        #expect(recorder.recorded == [.presented, .declined])
    }

    @Test(arguments: [AccessRequestErrorCode.requestDecodeFailure, .missingRequest, .unsupportedVersion, .internalError])
    func eachFailureIsReportedWithItsCause(_ code: AccessRequestErrorCode) async throws {
        onePassword.enqueue(.fail(code))
        let outcome = try await makeHandoff().request(reference)
        #expect("\(outcome)" == "failed: \(code)")
        #expect(recorder.recorded.last.map { "\($0)" } == "failed: \(code)")
    }

    @Test func anUnknownErrorIsAFailure() async throws {
        onePassword.enqueue(.failUnrecognized(domain: "NSCocoaErrorDomain", number: 4097))
        #expect(try await makeHandoff().request(reference) == .failed(.unrecognized(domain: "NSCocoaErrorDomain", number: 4097)))
    }

    @Test func internalErrorThenTheSameReferenceAgainLaterIsGranted() async throws {
        onePassword.enqueue(.fail(.internalError), .grant([.init(entryID: "a", reference: "r-a")]))
        let handoff = makeHandoff()
        let first = try await handoff.request(reference)
        #expect(first.retryPolicy == .presentAgainLater)
        clock.advance(by: .seconds(60))
        let second = try await handoff.request(reference)
        guard case .granted = second else {
            Issue.record("got \(second)")
            return
        }
        #expect(onePassword.log.map(\.sameReferenceAsPrevious) == [nil, true])
    }

    @Test func closingTheSheetIsCancelledWithoutError() async throws {
        onePassword.enqueue(.closeWithoutChoosing)
        #expect(try await makeHandoff().request(reference) == .cancelled)
        #expect(recorder.recorded == [.presented, .cancelled(.closedWithoutChoice)])
    }

    @Test func completingWithoutAGrantIsReported() async throws {
        onePassword.enqueue(.completeWithoutGrant)
        #expect(try await makeHandoff().request(reference) == .grantMissing)
        #expect(recorder.recorded == [.presented, .grantMissing])
    }

    @Test func aMalformedGrantIsAnUnreadableGrantFailure() async throws {
        onePassword.enqueue(.grantBytes(Array(#"{"path":"p","state":"resolved","resolved":"nope"}"#.utf8)))
        #expect(try await makeHandoff().request(reference) == .failed(.unreadableGrant(.wrongType("resolved"))))
    }

    @Test func aGrantInAnotherStateIsThatState() async throws {
        onePassword.enqueue(.grantInState(.expired))
        let outcome = try await makeHandoff().request(reference)
        #expect(outcome.grant?.state == .expired)
        #expect(outcome.retryPolicy == .createNewRequest)
        #expect(recorder.recorded == [.presented, .notGranted(.expired)])
    }

    @Test func anAnswerAfterADelayArrivesInSimulatedTime() async throws {
        onePassword.enqueue(.after(.seconds(45), .grant([.init(entryID: "a", reference: "r")])))
        let handoff = makeHandoff(timeout: .seconds(300))
        let request = Task { try await handoff.request(reference) }
        await clock.waitForSleepers(count: 2)  // the timeout and the simulated person
        clock.advance(by: .seconds(45))
        guard case .granted = try await request.value else {
            Issue.record("not granted")
            return
        }
        // The timeout timer was cancelled: its task ends, and its sleep is off the clock.
        await signal.wait { handoff.liveTaskCount == 0 }
        #expect(clock.sleeperCount == 0)
    }

    @Test func oneRequestInFlightASecondIsMisuse() async throws {
        onePassword.enqueue(.neverAnswer)
        let handoff = makeHandoff()
        let first = Task { try await handoff.request(reference) }
        await onePassword.waitForSuspendedPresentations()
        await #expect(throws: AccessRequestError.alreadyInProgress) { try await handoff.request(reference) }
        #expect(handoff.isPresenting)
        first.cancel()
        await #expect(throws: AccessRequestError.cancelled) { try await first.value }
        #expect(onePassword.log.count == 1)
    }

    @Test func cancellingTheCallerCancelsThePresentation() async throws {
        onePassword.enqueue(.neverAnswer)
        let handoff = makeHandoff()
        let request = Task { try await handoff.request(reference) }
        await onePassword.waitForSuspendedPresentations()
        request.cancel()
        await #expect(throws: AccessRequestError.cancelled) { try await request.value }
        #expect(recorder.recorded == [.presented, .cancelled(.taskCancelled)])
        #expect(!(handoff.isPresenting))
        // The presentation was cancelled with the caller: its task ends, nothing is left suspended.
        await signal.wait { handoff.liveTaskCount == 0 }
        #expect(onePassword.suspendedPresentationCount == 0)
    }

    @Test func aCallerCancelledBeforeItStartsNeverPresents() async throws {
        let handoff = makeHandoff()
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await handoff.request(reference)
        }
        await #expect(throws: AccessRequestError.cancelled) { try await request.value }
        #expect(onePassword.log.isEmpty)
    }

    @Test func theTimeoutRunsOnTheInjectedClock() async throws {
        onePassword.enqueue(.neverAnswer, .decline)
        let handoff = makeHandoff(timeout: .seconds(120))
        let request = Task { try await handoff.request(reference) }
        await clock.waitForSleepers()
        await onePassword.waitForSuspendedPresentations()
        clock.advance(by: .seconds(119))
        #expect(handoff.isPresenting)
        clock.advance(by: .seconds(1))
        await #expect(throws: AccessRequestError.timedOut) { try await request.value }
        #expect(recorder.recorded == [.presented, .cancelled(.timedOut)])
        // The handoff is free again.
        #expect(try await handoff.request(reference) == .declined)
    }

    @Test func aPresenterWithNothingToShowIsAPresentationFailure() async throws {
        await #expect(throws: AccessRequestError.presentationFailed("no scripted answer left")) {
            try await makeHandoff().request(reference)
        }
        #expect(recorder.recorded == [.presented, .presentationFailed])
    }

    @Test func eventsStreamDeliversTheSameEvents() async throws {
        onePassword.enqueue(.decline)
        let handoff = makeHandoff()
        let stream = handoff.events()
        _ = try await handoff.request(reference)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .presented)
        #expect(await iterator.next() == .declined)
    }

    // MARK: - Shutting down

    @Test func shutdownAnswersTheWaitingCallerAndEndsThePresentationAndTheTimer() async throws {
        onePassword.enqueue(.neverAnswer)
        let handoff = makeHandoff(timeout: .seconds(300))
        let request = Task { try await handoff.request(reference) }
        await onePassword.waitForSuspendedPresentations()
        await clock.waitForSleepers()
        #expect(handoff.liveTaskCount == 2)  // the presentation and the timeout
        await handoff.shutdown()
        // Every task ended before shutdown returned: the presenter saw the cancellation, and the
        // timer's sleep is off the clock.
        #expect(handoff.liveTaskCount == 0)
        #expect(onePassword.suspendedPresentationCount == 0)
        #expect(clock.sleeperCount == 0)
        await #expect(throws: AccessRequestError.shutDown) { try await request.value }
        #expect(recorder.recorded == [.presented, .cancelled(.shutDown)])
        #expect(!handoff.isPresenting)
    }

    @Test func aShutDownHandoffRefusesLaterRequestsWithoutPresenting() async throws {
        onePassword.enqueue(.decline)
        let handoff = makeHandoff(timeout: .seconds(300))
        await handoff.shutdown()
        await #expect(throws: AccessRequestError.shutDown) { try await handoff.request(reference) }
        #expect(onePassword.log.isEmpty)
        #expect(onePassword.remainingAnswerCount == 1)
        #expect(handoff.liveTaskCount == 0)
        #expect(recorder.recorded.isEmpty)
    }

    @Test func shutdownEndsTheEventStreams() async throws {
        onePassword.enqueue(.neverAnswer)
        let handoff = makeHandoff()
        let before = handoff.events()
        let request = Task { try await handoff.request(reference) }
        await onePassword.waitForSuspendedPresentations()
        await handoff.shutdown()
        var iterator = before.makeAsyncIterator()
        #expect(await iterator.next() == .presented)
        #expect(await iterator.next() == .cancelled(.shutDown))
        #expect(await iterator.next() == nil)
        var after = handoff.events().makeAsyncIterator()
        #expect(await after.next() == nil)
        _ = try? await request.value
    }
}
