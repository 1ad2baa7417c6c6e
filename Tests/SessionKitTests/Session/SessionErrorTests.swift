import Foundation
import SessionKitJOSE
import Testing

@testable import SessionKit

/// What an app can ask an error: its stable code and what to do about it.
@Suite("Session errors")
struct SessionErrorTests {
    static let all: [SessionError] = [
        .notSignedIn, .signInInProgress, .alreadySignedIn, .signOutInProgress, .accountDeletionInProgress, .cancelled,
        .handoffTimedOut, .authorizationDenied("access_denied"), .presentationFailed(.presentationFailed("no browser")),
        .callbackRejected(.issuerMismatch), .verificationFailed(.badSignature), .provider(.transport(.timedOut)),
        .refreshTokenRejected, .accountDeletionRefused(status: 403), .storage(.noSpace), .unsupported(.accountDeletion),
        .storedSessionForeign(.client), .anotherAccountInStore, .randomSourceFailed, .invalidRequestOptions(.promptNoneWithOthers),
        .sessionExpired, .deviceCodeExpired, .userInfoRejected(.subjectMismatch), .sessionFailed, .shutDown,
        .guestBootstrapFailed(.invalidDeviceSecret),
    ]

    @Test func everyKindOfErrorHasItsOwnStableCode() {
        let codes = Self.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { !$0.name.isEmpty && $0.name == $0.name.lowercased() && !$0.name.contains(" ") })
        #expect(Self.all.map(\.identifier).allSatisfy { $0.hasPrefix($0.split(separator: ".")[0]) && !$0.contains(" ") })
        #expect(SessionError.verificationFailed(.badSignature).code == .verificationFailed)
        #expect(SessionError.verificationFailed(.badSignature).identifier == "verification_failed.bad_signature")
        let unavailable = SessionError.provider(.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: ""))
        #expect(unavailable.code == .provider)
        #expect(unavailable.identifier == "provider.http_503")
        #expect(SessionError.storage(.corrupted("x")).identifier == "storage.corrupted")
        #expect(SessionError.unsupported(.deviceAuthorization).identifier == "unsupported.device_authorization")
        #expect(SessionError.callbackRejected(.missingCode).identifier == "callback_rejected.missing_code")
        #expect(SessionError.storedSessionForeign(.issuer).identifier == "stored_session_foreign.issuer")
        // A provider-chosen error code is kept only in its registered form.
        #expect(SessionError.authorizationDenied("access_denied").identifier == "authorization_denied.access_denied")
        #expect(SessionError.authorizationDenied("<script>").identifier == "authorization_denied.other")
    }

    @Test func theDetailsAreTyped() {
        let unavailable = ProviderError.http(status: 503, error: "temporarily_unavailable", retryAfterSeconds: 5, excerpt: "")
        #expect(SessionError.provider(unavailable).providerError == unavailable)
        #expect(SessionError.provider(unavailable).httpStatus == 503)
        #expect(SessionError.accountDeletionRefused(status: 403).httpStatus == 403)
        #expect(SessionError.verificationFailed(.expired).verificationError == .expired)
        #expect(SessionError.storage(.noSpace).storageError == .noSpace)
        #expect(SessionError.guestBootstrapFailed(.storage(.locked("device locked"))).storageError == .locked("device locked"))
        #expect(SessionError.unsupported(.deviceKey).unsupportedOperation == .deviceKey)
        #expect(SessionError.callbackRejected(.issuerMismatch).callbackRefusal == .issuerMismatch)
        #expect(SessionError.storedSessionForeign(.client).storedSessionMismatch == .client)
        #expect(SessionError.authorizationDenied("access_denied").authorizationError == "access_denied")
        #expect(SessionError.presentationFailed(.cancelled).handoffError == .cancelled)
        #expect(SessionError.userInfoRejected(.subjectMismatch).userInfoError == .subjectMismatch)
        #expect(SessionError.invalidRequestOptions(.promptNoneWithOthers).requestOptionsError == .promptNoneWithOthers)
        #expect(SessionError.guestBootstrapFailed(.invalidDeviceSecret).guestBootstrapError == .invalidDeviceSecret)
        // A detail of another kind is absent.
        #expect(SessionError.notSignedIn.providerError == nil)
        #expect(SessionError.provider(unavailable).storageError == nil)
        #expect(SessionError.storage(.noSpace).httpStatus == nil)
    }

    @Test func everyReasonHasItsOwnStableCodeAndTypedDetails() {
        let failure = SessionError.provider(.transport(.timedOut))
        let reasons: [TransitionReason] = [
            .current, .signInRequested, .verified(subject: "alice"), .refreshed(callers: 3), .tokenDue(inSeconds: 10, callers: 2),
            .retrying(attempt: 2, afterSeconds: 1.5, because: failure), .refreshFailedTransiently(failure),
            .storageFailed(.noSpace), .notJournaled(.noSpace), .signedOutLocallyOnly(.unsupported(.revocation)),
            .accountDeletionUnavailable(.accountDeletion), .providerSessionNotEnded(.timedOut), .storedSessionNotRestored(.issuer),
            .guestStarted(subject: "guest", startedOver: true),
        ]
        let codes = reasons.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { !$0.name.isEmpty && $0.name == $0.name.lowercased() && !$0.name.contains(" ") })
        #expect(TransitionReason.verified(subject: "alice").subject == "alice")
        #expect(TransitionReason.refreshed(callers: 3).callers == 3)
        #expect(TransitionReason.tokenDue(inSeconds: 10, callers: 2).inSeconds == 10)
        let retrying = TransitionReason.retrying(attempt: 2, afterSeconds: 1.5, because: failure)
        #expect(retrying.code == .retrying && retrying.attempt == 2 && retrying.delay == .milliseconds(1500))
        #expect(retrying.error == failure)
        #expect(TransitionReason.storageFailed(.noSpace).error == .storage(.noSpace))
        #expect(TransitionReason.notJournaled(.noSpace).error?.storageError == .noSpace)
        #expect(TransitionReason.signedOutLocallyOnly(.unsupported(.revocation)).error?.unsupportedOperation == .revocation)
        #expect(TransitionReason.accountDeletionUnavailable(.accountDeletion).error == .unsupported(.accountDeletion))
        #expect(TransitionReason.providerSessionNotEnded(.timedOut).providerLogout == .timedOut)
        #expect(TransitionReason.storedSessionNotRestored(.issuer).error == .storedSessionForeign(.issuer))
        #expect(TransitionReason.guestStarted(subject: "guest", startedOver: true).startedOver)
        #expect(TransitionReason.signInRequested.error == nil && TransitionReason.signInRequested.subject == nil)
        // The phrase is the one the walkthrough prints.
        #expect("\(TransitionReason.storedSessionNotRestored(.issuer))" == "stored session not restored: it was written for another issuer")
        #expect("\(retrying)" == "attempt 2 failed (timed out); retrying in 1.5s")
    }

    @Test func categoriesAnswerWhatToDo() {
        #expect(SessionError.notSignedIn.requiresSignIn)
        #expect(SessionError.refreshTokenRejected.requiresSignIn)
        #expect(SessionError.verificationFailed(.expired).requiresSignIn)
        #expect(SessionError.provider(.transport(.connectionFailed("offline"))).isTransient)
        #expect(SessionError.provider(.http(status: 429, error: nil, retryAfterSeconds: 5, excerpt: "")).isTransient)
        #expect(!SessionError.provider(.transport(.timedOut)).requiresSignIn)
        #expect(SessionError.signInInProgress.isMisuse)
        #expect(SessionError.alreadySignedIn.isMisuse)
        #expect(SessionError.signOutInProgress.category == .operationInProgress)
        #expect(SessionError.storage(.noSpace).isStorageFailure)
        #expect(SessionError.accountDeletionRefused(status: 401).category == .refused)
        #expect(SessionError.randomSourceFailed.category == .system)
        #expect(SessionError.cancelled.category == .cancelled)
    }

    @Test func everyMisuseTheTableNamesIsAMisuseOrAStageTheAppMustWaitFor() {
        for rule in SessionTransitionTable.rules {
            guard case .misuse(let misuse) = rule.outcome else { continue }
            let category = misuse.error.category
            #expect([.misuse, .operationInProgress, .signInRequired].contains(category), "\(rule.event) in \(rule.stage)")
        }
    }

    @Test func descriptionsCarryTheCodeAndNoSecret() {
        for error in Self.all {
            #expect(error.description.hasPrefix(error.identifier))
            #expect(!"\(error)".contains("AT-"))
        }
    }
}

/// The one table that classifies failed calls to the provider (issue: every answer, every call).
@Suite("Provider error disposition")
struct ProviderErrorDispositionTests {
    static func http(_ status: Int, _ error: String? = nil) -> ProviderError {
        .http(status: status, error: error, retryAfterSeconds: nil, excerpt: "")
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var error: ProviderError
        var exchange: ProviderErrorDisposition
        var refresh: ProviderErrorDisposition
        var revocation: ProviderErrorDisposition
        var disconnect: ProviderErrorDisposition
        var testDescription: String { error.summary }
    }

    static let rows: [Row] = [
        Row(
            error: .transport(.connectionFailed("refused")), exchange: .transient, refresh: .transient, revocation: .transient,
            disconnect: .transient),
        Row(error: .transport(.timedOut), exchange: .transient, refresh: .transient, revocation: .transient, disconnect: .transient),
        Row(error: http(408), exchange: .transient, refresh: .transient, revocation: .transient, disconnect: .transient),
        Row(error: http(429), exchange: .transient, refresh: .transient, revocation: .transient, disconnect: .transient),
        Row(error: http(500), exchange: .transient, refresh: .transient, revocation: .transient, disconnect: .transient),
        Row(error: http(503), exchange: .transient, refresh: .transient, revocation: .transient, disconnect: .transient),
        Row(error: http(400, "invalid_grant"), exchange: .permanent, refresh: .permanent, revocation: .permanent, disconnect: .permanent),
        Row(error: http(400), exchange: .permanent, refresh: .permanent, revocation: .permanent, disconnect: .permanent),
        Row(error: http(400, "brand_new_error"), exchange: .permanent, refresh: .permanent, revocation: .permanent, disconnect: .permanent),
        Row(error: http(401), exchange: .permanent, refresh: .permanent, revocation: .permanent, disconnect: .permanent),
        Row(error: http(403), exchange: .permanent, refresh: .transient, revocation: .permanent, disconnect: .permanent),
        Row(error: http(404), exchange: .permanent, refresh: .transient, revocation: .permanent, disconnect: .permanent),
        Row(error: http(409), exchange: .permanent, refresh: .transient, revocation: .permanent, disconnect: .permanent),
        Row(error: .invalidResponse("no JSON"), exchange: .transient, refresh: .transient, revocation: .transient, disconnect: .transient),
    ]

    @Test(arguments: rows)
    func theTable(_ row: Row) {
        #expect(row.error.disposition(in: .codeExchange) == row.exchange)
        #expect(row.error.disposition(in: .refresh) == row.refresh)
        #expect(row.error.disposition(in: .revocation) == row.revocation)
        #expect(row.error.disposition(in: .disconnect) == row.disconnect)
    }
}
