import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct AccessRequestHandoffTests {
    let clock = TestClock()
    let onePassword: SimulatedOnePassword
    let recorder = EventRecorder<AccessRequestEvent>()

    init() {
        onePassword = SimulatedOnePassword(clock: clock)
    }

    private func makeHandoff(timeout: Duration? = nil) async -> AccessRequestHandoff<TestClock> {
        let handoff = AccessRequestHandoff(presenter: onePassword, clock: clock, timeout: timeout)
        await handoff.addObserver { [recorder] in recorder.record($0) }
        return handoff
    }

    private let reference = AccessRequestReference(Fixtures.reference)

    @Test func grantedEntriesMatchByEntryIDPlusAnExtraLogin() async throws {
        onePassword.enqueue(
            .grant(
                [
                    .init(entryID: "aws", reference: "r-aws"), .extra("r-extra"), .init(entryID: "github", reference: "r-github"),
                ]))
        let handoff = await makeHandoff()
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
        let handoff = await makeHandoff()
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
        let handoff = await makeHandoff(timeout: .seconds(300))
        let request = Task { try await handoff.request(reference) }
        await clock.waitForSleepers(count: 2)  // the timeout and the simulated person
        clock.advance(by: .seconds(45))
        guard case .granted = try await request.value else {
            Issue.record("not granted")
            return
        }
        #expect(clock.sleeperCount == 0)  // the timeout timer was cancelled
    }

    @Test func oneRequestInFlightASecondIsMisuse() async throws {
        onePassword.enqueue(.neverAnswer)
        let handoff = await makeHandoff()
        let first = Task { try await handoff.request(reference) }
        await onePassword.waitForSuspendedPresentations()
        await #expect(throws: AccessRequestError.alreadyInProgress) { try await handoff.request(reference) }
        #expect(await handoff.isPresenting)
        first.cancel()
        await #expect(throws: AccessRequestError.cancelled) { try await first.value }
        #expect(onePassword.log.count == 1)
    }

    @Test func cancellingTheCallerCancelsThePresentation() async throws {
        onePassword.enqueue(.neverAnswer)
        let handoff = await makeHandoff()
        let request = Task { try await handoff.request(reference) }
        await onePassword.waitForSuspendedPresentations()
        request.cancel()
        await #expect(throws: AccessRequestError.cancelled) { try await request.value }
        #expect(recorder.recorded == [.presented, .cancelled(.taskCancelled)])
        #expect(!(await handoff.isPresenting))
        // The presentation was cancelled before the caller resumed: nothing is left suspended.
        #expect(onePassword.suspendedPresentationCount == 0)
    }

    @Test func aCallerCancelledBeforeItStartsNeverPresents() async throws {
        let handoff = await makeHandoff()
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await handoff.request(reference)
        }
        await #expect(throws: AccessRequestError.cancelled) { try await request.value }
        #expect(onePassword.log.isEmpty)
    }

    @Test func theTimeoutRunsOnTheInjectedClock() async throws {
        onePassword.enqueue(.neverAnswer, .decline)
        let handoff = await makeHandoff(timeout: .seconds(120))
        let request = Task { try await handoff.request(reference) }
        await clock.waitForSleepers()
        await onePassword.waitForSuspendedPresentations()
        clock.advance(by: .seconds(119))
        #expect(await handoff.isPresenting)
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
        let handoff = await makeHandoff()
        let stream = await handoff.events()
        _ = try await handoff.request(reference)
        var iterator = stream.makeAsyncIterator()
        #expect(await iterator.next() == .presented)
        #expect(await iterator.next() == .declined)
    }
}
