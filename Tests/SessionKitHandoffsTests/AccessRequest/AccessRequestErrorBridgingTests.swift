import Foundation
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

/// 1Password's error as its seed declares it: a Swift enum without payloads, in declaration
/// order. Swift bridges a case to an `NSError` with this module's name as the domain prefix.
enum OnePasswordAccessRequestError: Error {
    case requestDecodeFailure
    case missingRequest
    case unsupportedVersion
    case declined
    case internalError
}

@Suite struct AccessRequestErrorBridgingTests {
    private static let cases: [(OnePasswordAccessRequestError, AccessRequestErrorCode)] = [
        (.requestDecodeFailure, .requestDecodeFailure), (.missingRequest, .missingRequest), (.unsupportedVersion, .unsupportedVersion),
        (.declined, .declined), (.internalError, .internalError),
    ]

    @Test func swiftBridgesTheEnumToItsModuleQualifiedNameAndCasePosition() {
        for (position, (error, _)) in Self.cases.enumerated() {
            let bridged = error as NSError
            #expect(bridged.domain == "SessionKitHandoffsTests.OnePasswordAccessRequestError")
            #expect(bridged.code == position)
        }
    }

    @Test func theDefaultTableRecognizesEveryBridgedCase() {
        for (error, code) in Self.cases {
            #expect(AccessRequestReportedError(bridging: error).code == code)
            // The same error built by hand, as the share sheet hands it over.
            let built = NSError(domain: "OnePasswordKit.OnePasswordAccessRequestError", code: (error as NSError).code)
            #expect(AccessRequestReportedError(bridging: built).code == code)
            #expect(AccessRequestErrorTable.onePassword.recognize(domain: "OnePasswordAccessRequestError", code: built.code) == code)
        }
    }

    @Test func aDeclineFromTheShareSheetIsADeclineNotAFailure() {
        let reported = AccessRequestReportedError(bridging: OnePasswordAccessRequestError.declined)
        let outcome = AccessRequestOutcome(AccessRequestCompletion(completed: false, error: reported))
        #expect(outcome == .declined)
        #expect(outcome.retryPolicy == .doNotRetry)
        let update = AccessRequestOutcome(
            AccessRequestCompletion(
                completed: false, error: AccessRequestReportedError(bridging: OnePasswordAccessRequestError.unsupportedVersion)))
        #expect(update.retryPolicy == .updateOnePassword)
        let later = AccessRequestOutcome(
            AccessRequestCompletion(
                completed: false, error: AccessRequestReportedError(bridging: OnePasswordAccessRequestError.internalError)))
        #expect(later.retryPolicy.allowsAutomaticRetry)
    }

    @Test(arguments: [
        ("OnePasswordAccessRequestError", 5), ("OnePasswordAccessRequestError", -1), ("X.OnePasswordAccessRequestErrors", 3),
        ("XOnePasswordAccessRequestError", 3), ("NSCocoaErrorDomain", 3), ("", 0),
    ])
    func anythingElseStaysUnrecognizedAndIsNotRetried(_ domain: String, _ code: Int) {
        let reported = AccessRequestReportedError(bridging: NSError(domain: domain, code: code))
        #expect(reported.code == nil)
        let outcome = AccessRequestOutcome(AccessRequestCompletion(completed: false, error: reported))
        #expect(outcome == .failed(.unrecognized(domain: domain, number: code)))
        #expect(outcome.retryPolicy == .doNotRetry)
    }

    @Test func explicitPairsOverrideTheBridgedFormAndAnEmptyTableKnowsNothing() {
        let table = AccessRequestErrorTable.onePassword.adding(domain: "X.OnePasswordAccessRequestError", codes: [3: .internalError])
        #expect(table.recognize(domain: "X.OnePasswordAccessRequestError", code: 3) == .internalError)
        #expect(table.recognize(domain: "Y.OnePasswordAccessRequestError", code: 3) == .declined)
        #expect(AccessRequestErrorTable().recognize(domain: "X.OnePasswordAccessRequestError", code: 3) == nil)
        #expect(
            AccessRequestErrorTable(domain: "OP", codes: [1: .declined]).recognize(domain: "X.OnePasswordAccessRequestError", code: 3)
                == nil)
    }

    @Test func theSimulatorReportsErrorsInTheBridgedForm() {
        for (error, code) in Self.cases {
            let simulated = SimulatedOnePassword.bridgedError(code)
            #expect(simulated.domain.hasSuffix(".OnePasswordAccessRequestError"))
            #expect(simulated.code == (error as NSError).code)
        }
    }
}
