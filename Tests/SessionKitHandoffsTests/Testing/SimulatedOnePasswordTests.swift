import SessionKitJOSE
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

@Suite struct SimulatedOnePasswordTests {
    let clock = TestClock()

    private func present(_ answer: SimulatedOnePasswordAnswer, reference: String = "ref") async throws -> AccessRequestCompletion {
        try await SimulatedOnePassword(clock: clock, answers: [answer]).present(AccessRequest(reference: AccessRequestReference(reference)))
    }

    @Test(arguments: [SimulatedOnePasswordReferenceShape.object, .plainString])
    func grantsAreWrittenAs1PasswordWritesThem(_ shape: SimulatedOnePasswordReferenceShape) async throws {
        let completion = try await present(.grant([.init(entryID: "a", reference: "r-a"), .extra("r-x")], shape: shape))
        #expect(completion.completed)
        #expect(completion.error == nil)
        let bytes = try #require(completion.grantData.first)
        let object = try JSONParser.parseObject(bytes)
        guard case .array(let entries)? = object["resolved"], case .object(let first)? = entries.first else {
            Issue.record("no entries written")
            return
        }
        switch shape {
        case .object: #expect(first["reference"] == .object(try JSONParser.parseObject(Array(#"{"reference":"r-a"}"#.utf8))))
        case .plainString: #expect(first["reference"] == .string("r-a"))
        }
        #expect(object["simulator"] != nil)  // a member readers must ignore
        #expect(try AccessGrant.decode(bytes).resolved.map(\.entryID) == ["a", nil])
    }

    @Test func errorsUseItsDomainAndTable() async throws {
        for code in AccessRequestErrorCode.allCases {
            let completion = try await present(code == .declined ? .decline : .fail(code))
            #expect(completion.error?.domain == SimulatedOnePassword.errorDomain)
            #expect(completion.error?.number == SimulatedOnePassword.errorNumbers[code])
            #expect(completion.error?.code == code)
            #expect(
                SimulatedOnePassword.errorTable.recognize(domain: SimulatedOnePassword.errorDomain, code: completion.error?.number ?? 0)
                    == code)
        }
    }

    @Test func errorsAreTheBridgedEnumTheDefaultTableReads() async throws {
        for (position, code) in AccessRequestErrorTable.bridgedCaseOrder.enumerated() {
            let completion = try await present(.fail(code))
            #expect(completion.error?.domain.hasSuffix(".OnePasswordAccessRequestError") == true)
            #expect(completion.error?.number == position)
            #expect(AccessRequestErrorTable.onePassword.recognize(completion.error!).code == code)
        }
    }

    @Test func anEmptyReferenceIsARequestDecodeFailureNotAMissingRequest() async throws {
        // Seed: requestDecodeFailure is "the request is malformed, or 1Password couldn't read its
        // access request reference"; missingRequest is "none of the shared items contained an
        // access request", which only a script can say here.
        let onePassword = SimulatedOnePassword(clock: clock, answers: [.decline])
        let completion = try await onePassword.present(AccessRequest(reference: AccessRequestReference("")))
        #expect(completion.error?.code == .requestDecodeFailure)
        #expect(onePassword.remainingAnswerCount == 1)
        #expect(try await present(.fail(.missingRequest)).error?.code == .missingRequest)
    }

    @Test func anyBridgedErrorCanBeScripted() async throws {
        let declined = try await present(.failBridged(domain: "Vendor.OnePasswordAccessRequestError", code: 3))
        #expect(declined.error == AccessRequestReportedError(domain: "Vendor.OnePasswordAccessRequestError", number: 3, code: .declined))
        #expect(AccessRequestOutcome(declined) == .declined)
        let unknown = try await present(.failBridged(domain: "NSCocoaErrorDomain", code: 3))
        #expect(unknown.error?.code == nil)
        #expect(AccessRequestOutcome(unknown).retryPolicy == .doNotRetry)
    }

    @Test func closingAndCompletingWithoutAGrant() async throws {
        #expect(try await present(.closeWithoutChoosing) == AccessRequestCompletion(completed: false))
        #expect(try await present(.completeWithoutGrant) == AccessRequestCompletion(completed: true))
    }

    @Test func anAnswerAfterADelayWaitsOnTheClock() async throws {
        let onePassword = SimulatedOnePassword(clock: clock, answers: [.after(.seconds(30), .decline)])
        let presenting = Task { try await onePassword.present(AccessRequest(reference: AccessRequestReference("r"))) }
        await clock.waitForSleepers()
        clock.advance(by: .seconds(30))
        #expect(try await presenting.value.error?.code == .declined)
    }

    @Test func neverAnsweringLastsUntilCancelled() async throws {
        let onePassword = SimulatedOnePassword(clock: clock, answers: [.neverAnswer])
        let presenting = Task { try await onePassword.present(AccessRequest(reference: AccessRequestReference("r"))) }
        await onePassword.waitForSuspendedPresentations()
        #expect(onePassword.suspendedPresentationCount == 1)
        presenting.cancel()
        await #expect(throws: AccessRequestPresentationError.cancelled) { try await presenting.value }
        #expect(onePassword.suspendedPresentationCount == 0)
    }

    @Test func theLogTellsWhetherTheReferenceWasTheSameWithoutHoldingIt() async throws {
        let onePassword = SimulatedOnePassword(clock: clock, answers: [.decline, .decline, .decline])
        for reference in ["ref-1", "ref-1", "ref-2"] {
            _ = try await onePassword.present(AccessRequest(reference: AccessRequestReference(reference)))
        }
        #expect(onePassword.log.map(\.sameReferenceAsPrevious) == [nil, true, false])
        #expect(onePassword.log.allSatisfy { $0.version == 1 && $0.answer == "decline" })
        #expect(onePassword.log.map(\.description).allSatisfy { !$0.contains("ref-") })
        #expect(onePassword.remainingAnswerCount == 0)
    }

    @Test func withNothingScriptedItFailsInsteadOfHanging() async {
        await #expect(throws: AccessRequestPresentationError.unavailable("no scripted answer left")) {
            try await SimulatedOnePassword(clock: clock).present(AccessRequest(reference: AccessRequestReference("r")))
        }
    }
}
