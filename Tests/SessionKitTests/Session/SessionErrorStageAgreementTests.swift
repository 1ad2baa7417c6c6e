import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Every error a refresh, a sign-out, an account deletion and a launch can throw, against the stage the
/// session is left in: `requiresSignIn` only once the session has ended (or never began), and an
/// error that leaves it signed in is transient, refused or misuse.
@Suite("Error categories agree with the stage")
struct SessionErrorStageAgreementTests {
    /// Why `error` does not fit `stage`, or `nil` when it does.
    static func disagreement(_ error: SessionError, stage: SessionStage) -> String? {
        let signedIn = stage == .active || stage == .refreshing
        if error.requiresSignIn && stage != .signedOut {
            return "\(error.code) asks for sign-in while the session is \(stage)"
        }
        if signedIn && ![.transient, .refused, .misuse].contains(error.category) {
            return "\(error.code) (\(error.category)) while the session is still \(stage)"
        }
        return nil
    }

    static let refreshFaults: [SimulatedProviderFault] = [
        .connectionFailure, .serverError(status: 503), .serverError(status: 500),
        .rateLimited(retryAfterSeconds: 5), .invalidGrant, .unauthorized, .forbidden, .notFound, .malformedJSON,
        .rawAnswer(status: 400, body: ""), .rawAnswer(status: 400, body: #"{"error":"invalid_request"}"#),
        .rawAnswer(status: 409, body: #"{"error":"conflict"}"#), .tamperedIDToken(.badSignature),
        .tamperedIDToken(.subject("mallory")), .tamperedIDToken(.expired),
    ]

    enum Caller: String, CaseIterable, Sendable {
        case validAccessToken, refresh
    }

    @Test("a refresh's every failure, through either call, agrees with the stage after it", arguments: refreshFaults, Caller.allCases)
    func refreshFailures(fault: SimulatedProviderFault, caller: Caller) async throws {
        let h = try SessionHarness { $0.refreshRetry.maximumAttempts = 1 }
        let signedIn = try await h.signIn()
        // At expiry, so a failure cannot be answered with the current token.
        h.clock.advance(by: .seconds(3600))
        h.provider.script(fault, on: .token)
        let session = h.session
        let result = await SessionCallResult { () async throws(SessionError) in
            switch caller {
            case .validAccessToken: try await session.validAccessToken()
            case .refresh: try await session.refresh()
            }
        }
        let error = try #require(result.error, "\(fault) through \(caller) did not fail")
        #expect(Self.disagreement(error, stage: session.stage) == nil, "\(fault) through \(caller)")
        if error.category == .refused {
            #expect(session.stage == .active, "a refusal keeps the session")
            #expect(h.store.record.session?.refreshToken == signedIn.refreshToken)
        }
        if error.requiresSignIn { #expect(session.stage == .signedOut) }
    }

    @Test("a 403 or 404 to a refresh is a refusal: the session stays, and the next call tries again", arguments: [403, 404])
    func forbiddenAndNotFoundAreRefusals(status: Int) async throws {
        let h = try SessionHarness { $0.refreshRetry.maximumAttempts = 1 }
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3600))
        h.provider.script(status == 403 ? .forbidden : .notFound, on: .token)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.validAccessToken() }.error)
        #expect(error.category == .refused)
        #expect(!error.requiresSignIn)
        #expect(error.identifier == "provider.http_\(status)")
        #expect(h.session.stage == .active)
        // Following the error's advice (try again later) works; signing in would be misuse.
        await #expect(throws: SessionError.alreadySignedIn) { try await h.session.signIn() }
        #expect(try await h.session.validAccessToken().secret == h.store.record.session?.accessToken)
    }

    @Test(
        "an account deletion's every failure agrees with the stage after it",
        arguments: [SimulatedProviderFault.unauthorized, .forbidden, .rawAnswer(status: 409, body: #"{"error":"conflict"}"#)])
    func deletionFailures(fault: SimulatedProviderFault) async throws {
        let h = try SessionHarness()
        _ = try await h.signIn()
        h.provider.script(fault, on: .disconnect)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.deleteAccount() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil, "\(fault)")
        #expect(h.session.stage == .active)
    }

    @Test("a sign-out's failures agree with the stage after it")
    func signOutFailures() async throws {
        // Asked while an account deletion waits for the provider.
        let h = try SessionHarness()
        _ = try await h.signIn()
        h.provider.script(.serverError(status: 503), on: .disconnect, times: 100)
        let session = h.session
        let deletion = Task { await SessionCallResult { () async throws(SessionError) in try await session.deleteAccount() } }
        await h.clock.waitForSleepers(count: 1)
        let during = try #require(await SessionCallResult { () async throws(SessionError) in try await session.signOut() }.error)
        #expect(during == .accountDeletionInProgress)
        #expect(Self.disagreement(during, stage: session.stage) == nil)
        await session.shutdown()
        #expect(await deletion.value.error == .shutDown)
    }

    enum Ending: String, CaseIterable, Sendable {
        case signOut, deleteAccount
    }

    static let storeFaults: [InMemoryCredentialStore.Operation: [CredentialStoreError]] = [
        .load: [.corrupted("truncated"), .permissionDenied("read-only"), .locked("device locked"), .ioFailure("disk")],
        .save: [.noSpace, .permissionDenied("read-only"), .ioFailure("disk")],
    ]

    @Test(
        "a store failure while signing out or deleting agrees with the stage after it", arguments: Ending.allCases,
        [InMemoryCredentialStore.Operation.load, .save])
    func endingStoreFailures(ending: Ending, operation: InMemoryCredentialStore.Operation) async throws {
        for fault in Self.storeFaults[operation] ?? [] {
            let h = try SessionHarness()
            _ = try await h.signIn()
            await h.startRecording()
            h.store.failNext(operation, with: fault)
            let session = h.session
            let result = await SessionCallResult { () async throws(SessionError) in
                switch ending {
                case .signOut: try await session.signOut()
                case .deleteAccount: try await session.deleteAccount()
                }
            }
            let context = Comment(rawValue: "\(ending) with \(operation) failing: \(fault.code)")
            if let error = result.error {
                #expect(Self.disagreement(error, stage: session.stage) == nil, context)
                #expect(error == .storage(fault), context)
            }
            switch (operation, fault) {
            case (.save, _):
                // Read but not journaled: the operation goes on, server first, and says it will not
                // survive a relaunch.
                #expect(result.error == nil, context)
                #expect(session.stage == .signedOut, context)
                #expect(h.provider.activeGrantCount == 0, context)
                #expect(h.store.record.session == nil, context)
                let notJournaled = h.events.contains { event in
                    guard case .transition(let transition) = event, case .notJournaled = transition.reason.kind else { return false }
                    return transition.from == transition.to
                }
                #expect(notJournaled, context)
            case (.load, .locked):
                // Nothing was sent: the session stays, and the error says to try again.
                #expect(session.stage == .active, context)
                #expect(result.error?.isTransient == true, context)
                #expect(h.provider.activeGrantCount == 1, context)
            case (.load, _):
                // An unreadable store: the session ends in memory, and the error says why.
                #expect(session.stage == .signedOut, context)
                #expect(result.error?.isStorageFailure == true, context)
            default:
                Issue.record("unexpected operation \(operation)")
            }
        }
    }

    @Test(
        "a refresh whose rotated token cannot be stored agrees with the stage after it",
        arguments: [CredentialStoreError.noSpace, .ioFailure("disk")])
    func refreshStoreFailures(fault: CredentialStoreError) async throws {
        let h = try SessionHarness { $0.refreshRetry.maximumAttempts = 1 }
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3600))
        h.store.failNextSaves(1, with: fault)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.refresh() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil)
        #expect(error == .storage(fault))
    }

    @Test("a call the stage does not allow is misuse while signed in, never a reason to sign in")
    func misuseWhileSignedIn() async throws {
        let h = try SessionHarness()
        _ = try await h.signIn()
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.signIn() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil)
        #expect(error.isMisuse)
    }

    @Test("a launch's failures agree with the stage: a foreign store leaves it signed out and asks for sign-in")
    func restoreFailures() async throws {
        let h = try SessionHarness()
        var foreign = try await h.signIn()
        foreign.audience = ["another-client"]
        h.store.replaceRecord(CredentialRecord(session: foreign))
        let relaunched = await h.relaunch()
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await relaunched.restore() }.error)
        #expect(Self.disagreement(error, stage: relaunched.stage) == nil)
        #expect(relaunched.stage == .signedOut)
        #expect(error.requiresSignIn)
    }

    static let guestFaults: [SimulatedProviderFault] = [
        .connectionFailure, .serverError(status: 503), .rateLimited(retryAfterSeconds: 5), .malformedJSON, .forbidden,
        .rawAnswer(status: 400, body: #"{"error":"invalid_request"}"#),
        .rawAnswer(status: 401, body: #"{"error":"invalid_device_secret"}"#),
    ]

    @Test(
        "a guest key renewal's every failure, through either call, agrees with the stage after it", arguments: guestFaults, Caller.allCases)
    func guestRenewalFailures(fault: SimulatedProviderFault, caller: Caller) async throws {
        let h = try SessionHarness { $0.refreshRetry.maximumAttempts = 1 }
        try await h.session.startGuestSession()
        // At expiry, so a failure cannot be answered with the current key.
        h.clock.advance(by: .seconds(3600))
        // Twice: a refused secret gets one fresh bootstrap, which is refused too.
        h.provider.script(fault, on: .anonymousBootstrap, times: 2)
        let session = h.session
        let result = await SessionCallResult { () async throws(SessionError) in
            switch caller {
            case .validAccessToken: try await session.validAccessToken()
            case .refresh: try await session.refresh()
            }
        }
        let error = try #require(result.error, "\(fault) through \(caller) did not fail")
        #expect(Self.disagreement(error, stage: session.stage) == nil, "\(fault) through \(caller): \(error.code) in \(session.stage)")
        if error.isTransient { #expect(session.stage == .active, "a failure that may pass keeps the guest") }
        if error.requiresSignIn { #expect(session.stage == .signedOut) }
    }

    @Test("a guest session's start that fails leaves it signed out, in agreement", arguments: guestFaults)
    func guestStartFailures(fault: SimulatedProviderFault) async throws {
        let h = try SessionHarness()
        h.provider.script(fault, on: .anonymousBootstrap, times: 2)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.startGuestSession() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil, "\(fault): \(error.code)")
        #expect(h.session.stage == .signedOut)
    }

    @Test("a call a guest session does not allow is misuse, never a reason to sign in")
    func misuseInAGuestSession() async throws {
        let h = try SessionHarness()
        try await h.session.startGuestSession()
        h.provider.script(.slow(.seconds(5)), on: .anonymousBootstrap)
        h.clock.advance(by: .seconds(3550))
        let session = h.session
        let renewal = Task { try await session.refresh() }
        await h.waitUntil("renewing") { session.stage == .refreshing }
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await session.signIn() }.error)
        #expect(Self.disagreement(error, stage: session.stage) == nil)
        #expect(error.isMisuse)
        await h.advanceToNextSleeper()
        _ = try await renewal.value
    }
}
