import Foundation
import SessionKitJOSE
import Testing

@testable import SessionKit

/// What an app can ask an error: its stable code and what to do about it.
@Suite("Session errors")
struct SessionErrorTests {
    static let all: [SessionError] = [
        .notSignedIn, .signInInProgress, .alreadySignedIn, .signOutInProgress, .accountDeletionInProgress, .cancelled,
        .handoffTimedOut, .authorizationDenied("access_denied"), .presentationFailed("no browser"), .callbackRejected("iss mismatch"),
        .verificationFailed(.badSignature), .provider(.transport(.timedOut)),
        .provider(.http(status: 400, error: "invalid_request", retryAfterSeconds: nil, excerpt: "")), .refreshTokenRejected,
        .accountDeletionRefused(status: 403), .storage(.noSpace), .unsupported("no disconnect"), .randomSourceFailed,
    ]

    @Test func everyErrorHasADistinctStableCode() {
        let codes = Self.all.map(\.code)
        #expect(Set(codes).count == codes.count)
        #expect(codes.allSatisfy { !$0.isEmpty && $0 == $0.lowercased() && !$0.contains(" ") })
        #expect(SessionError.verificationFailed(.badSignature).code == "verification_failed.bad_signature")
        #expect(SessionError.provider(.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")).code == "provider.http_503")
        #expect(SessionError.storage(.corrupted("x")).code == "storage.corrupted")
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
            #expect(error.description.hasPrefix(error.code))
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
