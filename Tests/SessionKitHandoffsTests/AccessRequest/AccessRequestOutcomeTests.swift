import Testing

@testable import SessionKitHandoffs

@Suite struct AccessRequestOutcomeTests {
    private static let grantJSON = Fixtures.grant(resolved: #"[{"entryId":"a","reference":"r"}]"#)

    private func completed(_ attachments: [AccessRequestAttachment]...) -> AccessRequestCompletion {
        AccessRequestCompletion(completed: true, returnedItems: attachments.map(AccessRequestReturnedItem.init))
    }

    private func grantAttachment(_ bytes: [UInt8] = grantJSON) -> AccessRequestAttachment {
        AccessRequestAttachment(typeIdentifiers: [AccessGrant.typeIdentifier, "public.json"], data: bytes)
    }

    @Test func aResolvedGrantIsGranted() throws {
        let outcome = AccessRequestOutcome(completed([grantAttachment()]))
        guard case .granted(let grant) = outcome else {
            Issue.record("got \(outcome)")
            return
        }
        #expect(grant.resolved.count == 1)
        #expect(outcome.retryPolicy == .notNeeded)
    }

    @Test(arguments: [
        (AccessGrant.State.pending, AccessRequestRetryPolicy.presentAgainLater), (.denied, .doNotRetry), (.failed, .doNotRetry),
        (.expired, .createNewRequest),
    ])
    func aGrantInAnotherStateIsThatState(_ state: AccessGrant.State, _ policy: AccessRequestRetryPolicy) {
        let outcome = AccessRequestOutcome(completed([grantAttachment(Fixtures.grant(state: state.rawValue, resolved: "[]"))]))
        #expect(outcome.grant?.state == state)
        guard case .notGranted = outcome else {
            Issue.record("got \(outcome)")
            return
        }
        #expect(outcome.retryPolicy == policy)
    }

    @Test(arguments: [
        (AccessRequestErrorCode.declined, AccessRequestOutcome.declined, AccessRequestRetryPolicy.doNotRetry),
        (.requestDecodeFailure, .failed(.requestDecodeFailure), .fixRequest),
        (.missingRequest, .failed(.missingRequest), .fixRequest),
        (.unsupportedVersion, .failed(.unsupportedVersion), .updateOnePassword),
        (.internalError, .failed(.internalError), .presentAgainLater),
    ])
    func eachProtocolErrorHasItsOutcomeAndPolicy(
        _ code: AccessRequestErrorCode, _ expected: AccessRequestOutcome, _ policy: AccessRequestRetryPolicy
    ) {
        let reported = AccessRequestReportedError(domain: "d", number: 3, code: code)
        let outcome = AccessRequestOutcome(AccessRequestCompletion(completed: false, error: reported))
        #expect(outcome == expected)
        #expect(outcome.retryPolicy == policy)
        #expect(outcome.retryPolicy.allowsAutomaticRetry == (code == .internalError))
    }

    @Test func anUnknownErrorIsAFailureThatIsNotRetried() {
        let outcome = AccessRequestOutcome(
            AccessRequestCompletion(completed: true, error: AccessRequestReportedError(domain: "X", number: 99)))
        #expect(outcome == .failed(.unrecognized(domain: "X", number: 99)))
        #expect(outcome.retryPolicy == .doNotRetry)
    }

    @Test func aCompletedSheetWithAGrantIsAnsweredByTheGrantEvenWithAnError() {
        var completion = completed([grantAttachment()])
        completion.error = AccessRequestReportedError(domain: "d", number: 1, code: .declined)
        guard case .granted = AccessRequestOutcome(completion) else {
            Issue.record("the error won over 1Password's grant")
            return
        }
        // Without a grant, or when the sheet did not complete, the error decides.
        completion.returnedItems = []
        #expect(AccessRequestOutcome(completion) == .declined)
        completion = completed([grantAttachment()])
        completion.completed = false
        completion.error = AccessRequestReportedError(domain: "d", number: 1, code: .internalError)
        #expect(AccessRequestOutcome(completion) == .failed(.internalError))
    }

    @Test func closingWithoutAChoiceIsCancelled() {
        let outcome = AccessRequestOutcome(AccessRequestCompletion(completed: false))
        #expect(outcome == .cancelled)
        #expect(outcome.retryPolicy == .whenThePersonAsks)
        #expect(!outcome.retryPolicy.allowsAutomaticRetry)
    }

    @Test func completingWithoutAGrantIsGrantMissing() {
        #expect(AccessRequestOutcome(AccessRequestCompletion(completed: true)) == .grantMissing)
        let other = AccessRequestAttachment(typeIdentifiers: ["public.plain-text", "public.json"], data: Array("hello".utf8))
        #expect(AccessRequestOutcome(completed([other])) == .grantMissing)
        // A grant-typed attachment whose data could not be loaded carries nothing to decode.
        #expect(AccessRequestOutcome(completed([AccessRequestAttachment(typeIdentifiers: [AccessGrant.typeIdentifier])])) == .grantMissing)
        #expect(AccessRequestOutcome(.init(completed: true)).retryPolicy == .whenThePersonAsks)
    }

    @Test func theGrantIsFoundByTypeIdentifierInAnyItem() {
        let text = AccessRequestAttachment(typeIdentifiers: ["public.plain-text"], data: Array("x".utf8))
        guard case .granted = AccessRequestOutcome(completed([text], [text, grantAttachment()])) else {
            Issue.record("the grant in the second item was not found")
            return
        }
    }

    @Test func anUnreadableGrantIsAFailure() {
        #expect(AccessRequestOutcome(completed([grantAttachment(Array("{".utf8))])) == .failed(.unreadableGrant(.invalidJSON)))
        #expect(AccessRequestOutcome(completed([grantAttachment(Array("{".utf8))])).retryPolicy == .doNotRetry)
    }

    @Test func theFirstGrantAttachmentIsTheAnswerAsInOnePasswordsSample() {
        let pending = grantAttachment(Fixtures.grant(state: "pending", resolved: "[]"))
        #expect(AccessRequestOutcome(completed([grantAttachment()], [pending])).grant?.state == .resolved)
        #expect(AccessRequestOutcome(completed([pending, grantAttachment()])).grant?.state == .pending)
    }

    @Test func anAttachmentConformingToTheGrantTypeCounts() {
        let specific = AccessRequestAttachment(typeIdentifiers: ["com.1password.access-grant.v2"], data: Self.grantJSON)
        #expect(!specific.carriesGrant)
        #expect(AccessRequestOutcome(completed([specific])) == .grantMissing)
        let conforming = AccessRequestAttachment(typeIdentifiers: specific.typeIdentifiers, data: Self.grantJSON, conformsToGrantType: true)
        #expect(conforming.carriesGrant)
        guard case .granted = AccessRequestOutcome(completed([conforming])) else {
            Issue.record("a conforming attachment was not read")
            return
        }
    }

    @Test func errorTableRecognizesOnlyWhatItWasGiven() {
        let table = AccessRequestErrorTable(domain: "OP", codes: [4: .declined]).adding(domain: "OP", codes: [5: .internalError])
        #expect(table.recognize(domain: "OP", code: 4) == .declined)
        #expect(table.recognize(domain: "OP", code: 5) == .internalError)
        #expect(table.recognize(domain: "OP", code: 6) == nil)
        #expect(table.recognize(domain: "Other", code: 4) == nil)
        #expect(AccessRequestErrorTable().recognize(domain: "OP", code: 4) == nil)
        #expect(table.recognize(AccessRequestReportedError(domain: "OP", number: 5)).code == .internalError)
        // A code already known is kept.
        #expect(table.recognize(AccessRequestReportedError(domain: "OP", number: 5, code: .missingRequest)).code == .missingRequest)
    }

    @Test func onlyPresentingAgainLaterRetriesAutomatically() {
        let automatic = AccessRequestRetryPolicy.allCases.filter(\.allowsAutomaticRetry)
        #expect(automatic == [.presentAgainLater])
    }
}
