import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Every error a sign-in, a refresh, a sign-out, an account deletion and a launch can throw, against
/// the stage the session is left in: `requiresSignIn` only once the session has ended (or never
/// began), and an error that leaves it signed in is transient, refused, cancelled or misuse.
@Suite("Error categories agree with the stage")
struct SessionErrorStageAgreementTests {
    /// Why `error` does not fit `stage`, or `nil` when it does.
    static func disagreement(_ error: SessionError, stage: SessionStage) -> String? {
        let signedIn = stage == .active || stage == .refreshing
        if error.requiresSignIn && stage != .signedOut {
            return "\(error.code) asks for sign-in while the session is \(stage)"
        }
        if signedIn && ![.transient, .refused, .cancelled, .misuse].contains(error.category) {
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

    /// How a sign-in fails: the person, the presenter, the clock or the provider.
    enum SignInFailure: String, CaseIterable, Sendable {
        case denied, timedOut, presentationFailed, cancelledByThePerson
        case codeRejected, tokenEndpointUnavailable, idTokenForged
        case deviceDenied, deviceCodeExpired, deviceCancelled
    }

    /// Where the sign-in starts.
    enum SignInStart: String, CaseIterable, Sendable {
        case signedOut, guest
    }

    @Test(
        "a sign-in's every failure, browser or device, agrees with the stage it leaves", arguments: SignInFailure.allCases,
        SignInStart.allCases)
    func signInFailures(failure: SignInFailure, start: SignInStart) async throws {
        let h = try Self.signInHarness()
        if start == .guest { try await h.session.startGuestSession() }
        let guestKey = h.store.record.session?.accessToken
        let error = try #require(await Self.failedSignIn(h, failure), "\(failure) from \(start) did not fail")
        let session = h.session
        let context = Comment(rawValue: "\(failure) from \(start): \(error.identifier) (\(error.category)) in \(session.stage)")
        #expect(Self.disagreement(error, stage: session.stage) == nil, context)
        switch start {
        case .signedOut:
            #expect(session.stage == .signedOut, context)
        case .guest:
            // The guest goes on: its key is still handed out, and nothing asks for sign-in.
            #expect(session.stage == .active, context)
            #expect(session.identity?.isAnonymous == true, context)
            #expect(!error.requiresSignIn, context)
            #expect(try await session.validAccessToken().secret == guestKey, context)
        }
    }

    @Test(
        "a failed sign-in from a guest says whether to try again, that it was refused, or that the person cancelled it",
        arguments: [
            (SignInFailure.timedOut, SessionError.Category.transient), (.deviceCodeExpired, .transient), (.presentationFailed, .transient),
            (.tokenEndpointUnavailable, .transient), (.denied, .refused), (.deviceDenied, .refused), (.codeRejected, .refused),
            (.idTokenForged, .refused), (.cancelledByThePerson, .cancelled), (.deviceCancelled, .cancelled),
        ])
    func signInFromAGuestCategories(failure: SignInFailure, category: SessionError.Category) async throws {
        let h = try Self.signInHarness()
        try await h.session.startGuestSession()
        let error = try #require(await Self.failedSignIn(h, failure))
        #expect(error.category == category, "\(failure): \(error.identifier)")
        #expect(h.session.stage == .active)
        // The same failure from a signed-out session, where the advice may be to sign in.
        let signedOut = try Self.signInHarness()
        let fromSignedOut = try #require(await Self.failedSignIn(signedOut, failure))
        #expect(error == fromSignedOut, "the same failure, wherever the sign-in started")
        #expect(fromSignedOut.category == Self.categoryFromSignedOut[failure], "\(failure): \(fromSignedOut.identifier)")
    }

    /// What a sign-in's failure advises when it started signed out: sign in, unless it may pass,
    /// was refused by the provider's token endpoint, or was cancelled.
    static let categoryFromSignedOut: [SignInFailure: SessionError.Category] = [
        .timedOut: .signInRequired, .deviceCodeExpired: .signInRequired, .presentationFailed: .signInRequired,
        .tokenEndpointUnavailable: .transient, .denied: .signInRequired, .deviceDenied: .signInRequired, .codeRejected: .refused,
        .idTokenForged: .signInRequired, .cancelledByThePerson: .cancelled, .deviceCancelled: .cancelled,
    ]

    /// A session whose device codes expire after 12 s: polled at 5 s and 10 s, expired before a third.
    private static func signInHarness() throws -> SimulatedSessionEnvironment {
        try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(deviceCodeLifetime: .seconds(12)))
    }

    /// Runs a sign-in that fails as `failure` says, moving simulated time where it waits, and
    /// returns its error (`nil` if it did not fail).
    private static func failedSignIn(_ h: SimulatedSessionEnvironment, _ failure: SignInFailure) async -> SessionError? {
        let session = h.session
        let timeout = h.clock.now.advanced(by: h.configuration.handoffTimeout)
        switch failure {
        case .deviceDenied, .deviceCodeExpired, .deviceCancelled:
            switch failure {
            case .deviceDenied:
                h.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 1, decision: .deny))
                h.presenter.enqueue(.showDeviceCode)
            case .deviceCodeExpired: h.presenter.enqueue(.showDeviceCode)
            default: h.presenter.enqueue(.cancel)
            }
            let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() } }
            if failure != .deviceCancelled {
                await h.waitUntil("the code is shown") { h.presenter.presentedDeviceCodes.count == 1 }
                // One poll finds the denial; an unanswered code is polled twice, then expires.
                for _ in 0..<(failure == .deviceDenied ? 1 : 2) {
                    await h.waitUntil("the next poll is planned") { h.clock.nextDeadline.map { $0 < timeout } == true }
                    _ = h.clock.advanceToNextDeadline()
                }
            }
            return await signIn.value.error
        default:
            switch failure {
            case .denied: h.presenter.enqueue(.deny())
            case .timedOut: h.presenter.enqueue(.neverAnswer)
            case .presentationFailed: h.presenter.enqueue(.fail("no window to show the page in"))
            case .cancelledByThePerson: h.presenter.enqueue(.cancel)
            default: h.presenter.enqueue(.approve(subject: "alice"))
            }
            switch failure {
            case .codeRejected: h.provider.script(.invalidGrant, on: .token)
            case .tokenEndpointUnavailable: h.provider.script(.serverError(status: 503), on: .token)
            case .idTokenForged: h.provider.script(.tamperedIDToken(.badSignature), on: .token)
            default: break
            }
            let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn() } }
            if failure == .timedOut {
                await h.waitUntil("the handoff timer sleeps") { h.clock.nextDeadline == timeout }
                h.clock.advance(to: timeout)
            }
            return await signIn.value.error
        }
    }

    @Test("a refresh's every failure, through either call, agrees with the stage after it", arguments: refreshFaults, Caller.allCases)
    func refreshFailures(fault: SimulatedProviderFault, caller: Caller) async throws {
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
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
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
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
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        h.provider.script(fault, on: .disconnect)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.deleteAccount() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil, "\(fault)")
        #expect(h.session.stage == .active)
    }

    @Test("a sign-out's failures agree with the stage after it")
    func signOutFailures() async throws {
        // Asked while an account deletion waits for the provider.
        let h = try SimulatedSessionEnvironment()
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
            let h = try SimulatedSessionEnvironment()
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
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3600))
        h.store.failNextSaves(1, with: fault)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.refresh() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil)
        #expect(error == .storage(fault))
    }

    @Test("a call the stage does not allow is misuse while signed in, never a reason to sign in")
    func misuseWhileSignedIn() async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.signIn() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil)
        #expect(error.isMisuse)
    }

    @Test("a launch's failures agree with the stage: a foreign store leaves it signed out and asks for sign-in")
    func restoreFailures() async throws {
        let h = try SimulatedSessionEnvironment()
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
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
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
        let h = try SimulatedSessionEnvironment()
        h.provider.script(fault, on: .anonymousBootstrap, times: 2)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.startGuestSession() }.error)
        #expect(Self.disagreement(error, stage: h.session.stage) == nil, "\(fault): \(error.code)")
        #expect(h.session.stage == .signedOut)
    }

    @Test("a call a guest session does not allow is misuse, never a reason to sign in")
    func misuseInAGuestSession() async throws {
        let h = try SimulatedSessionEnvironment()
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
