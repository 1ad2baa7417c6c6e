import Foundation
import SessionKit
import SessionKitTesting

/// One lifecycle scenario, run on the simulated provider in simulated time.
struct Scenario: Sendable {
    var name: String
    var summary: String
    /// Adjusts the session's configuration before the scenario runs.
    var configure: @Sendable (inout SessionConfiguration) -> Void = { _ in }
    /// The simulated provider's configuration.
    var provider = SimulatedProviderConfiguration()
    /// Whether the session signs its requests with a DPoP key of its own (``DPoPMiddleware``).
    var signsWithDPoP = false
    var run: @Sendable (SimulatedSessionEnvironment, Narrator) async throws -> Void

    static let all: [Scenario] = [
        happyPath, concurrentRefresh, tamperedRefresh, outageSignOut, accountDeletion, deletionRefused, keyRotation, handoffTimeout,
        restoreAfterRelaunch, offlineLaunch, offlineExpired, accessGranted, accessDeclined, accessDeclinedBridged, accessRetryLater,
        accessClosed, credentialImport, importVersion, importPartial, stepUp, deviceSignIn, providerLogout, highAssuranceAction,
        relaunchMidSignOutOffline, refreshAfter401, guestThenSignIn, dpop, stolenRefreshToken,
    ]

    static let happyPath = Scenario(name: "happy-path", summary: "sign in → active → refresh → sign out") { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        say.note("app calls signIn(); alice approves at the provider", at: env.clock.wallClockNow())
        try await env.session.signIn()
        env.clock.advance(by: .seconds(3540))
        say.note("59 minutes later the app asks for a token", at: env.clock.wallClockNow())
        _ = try await env.session.validAccessToken()
        say.note("app calls signOut()", at: env.clock.wallClockNow())
        try await env.session.signOut()
        say.note(
            "provider saw \(env.provider.tokenRequestCount) token requests and \(env.provider.requestCount(for: .revocation)) revocation",
            at: env.clock.wallClockNow())
    }

    static let concurrentRefresh = Scenario(name: "concurrent-refresh", summary: "100 callers at expiry, one token request") { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(3540))
        env.provider.script(.slow(.milliseconds(250)), on: .token)
        say.note("100 callers ask for a token while it is due; the provider answers in 250 ms", at: env.clock.wallClockNow())
        let callers = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<100 { group.addTask { (try? await env.session.validAccessToken()) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        await env.clock.waitForSleepers(count: 1)
        await env.waitUntil { env.session.waitingCallerCount == 100 }
        env.clock.advanceToNextDeadline()
        let served = await callers.value
        say.note(
            "\(served) callers served by \(env.provider.requestCount(grantType: "refresh_token")) refresh request",
            at: env.clock.wallClockNow())
    }

    static let tamperedRefresh = Scenario(name: "tampered-refresh", summary: "a refreshed id_token with a bad signature is rejected") {
        env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(3540))
        env.provider.script(.tamperedIDToken(.badSignature), on: .token)
        say.note("the next token response carries an id_token with a broken signature", at: env.clock.wallClockNow())
        do {
            _ = try await env.session.validAccessToken()
            say.note("unexpected: a token was handed out", at: env.clock.wallClockNow())
        } catch {
            say.note("validAccessToken() threw \(error); no token from that response was handed out", at: env.clock.wallClockNow())
        }
        // The queue is empty and its last confirmation told: no task of the session is left.
        await env.waitUntil { env.store.record.pendingRevocations.isEmpty && env.session.liveTaskCount == 0 }
        // Say only what the provider confirmed.
        let confirmed = env.deferredRevocations
        say.note(
            "\(confirmed) refresh token\(confirmed == 1 ? "" : "s") of the rejected response revoked, confirmed by the provider; "
                + "store holds \(env.store.record.session == nil ? "no session" : "a session")", at: env.clock.wallClockNow())
    }

    static let outageSignOut = Scenario(name: "outage-sign-out", summary: "sign-out while the provider is down: retried, then confirmed") {
        env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.script(.serverError(status: 503), on: .revocation, times: 2)
        env.provider.script(.rateLimited(retryAfterSeconds: 30), on: .revocation)
        say.note("the revocation endpoint answers 503, 503, then 429 with Retry-After: 30", at: env.clock.wallClockNow())
        let signOut = Task { try await env.session.signOut() }
        for _ in 0..<3 {
            await env.clock.waitForSleepers(count: 1)
            if case .failure(let error) = await Result(catching: { try await env.session.validAccessToken() }) {
                say.note("meanwhile validAccessToken() throws \(error)", at: env.clock.wallClockNow())
            }
            env.clock.advanceToNextDeadline()
        }
        try await signOut.value
        say.note("stored credentials after sign-out: \(env.store.record.isEmpty ? "none" : "some")", at: env.clock.wallClockNow())
    }

    static let accountDeletion = Scenario(name: "account-deletion", summary: "disconnect confirmed, then wipe and delete-data event") {
        env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        say.note("app calls deleteAccount()", at: env.clock.wallClockNow())
        try await env.session.deleteAccount()
        // The queue is empty and its last confirmation told: no task of the session is left.
        await env.waitUntil { env.store.record.pendingRevocations.isEmpty && env.session.liveTaskCount == 0 }
        say.note(
            "device credential \(env.store.device == nil ? "reset" : "kept"); refresh token revoked: \(env.provider.activeGrantCount == 0)",
            at: env.clock.wallClockNow())
    }

    static let deletionRefused = Scenario(name: "deletion-refused", summary: "account deletion refused with 403: credentials kept") {
        env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.script(.forbidden, on: .disconnect)
        do {
            try await env.session.deleteAccount()
        } catch {
            say.note("deleteAccount() threw \(error)", at: env.clock.wallClockNow())
        }
        _ = try await env.session.validAccessToken()
        say.note("validAccessToken() still succeeds; the session is \(env.session.stage)", at: env.clock.wallClockNow())
    }

    static let keyRotation = Scenario(name: "key-rotation", summary: "the provider rotates its signing key between refreshes") { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        try env.provider.rotateSigningKey(retainPreviousFor: .zero)
        say.note("the provider rotates its signing key and drops the old one", at: env.clock.wallClockNow())
        env.clock.advance(by: .seconds(3540))
        _ = try await env.session.validAccessToken()
        say.note(
            "unknown kid → keys fetched again: \(env.provider.requestCount(for: .jwks)) JWKS requests in all", at: env.clock.wallClockNow())
    }

    static let handoffTimeout = Scenario(name: "handoff-timeout", summary: "nobody answers the handoff within 300 s") { env, say in
        env.presenter.enqueue(.neverAnswer)
        let signIn = Task { try await env.session.signIn() }
        await env.clock.waitForSleepers(count: 1)
        env.clock.advance(by: .seconds(300))
        if case .failure(let error) = await Result(catching: { try await signIn.value }) {
            say.note("signIn() threw \(error)", at: env.clock.wallClockNow())
        }
    }

    static let restoreAfterRelaunch = Scenario(
        name: "restore", summary: "cold launch: a new Session signs in from the stored, verified session, no request"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(600))
        say.note("the app is killed and relaunched; a new Session opens the same store", at: env.clock.wallClockNow())
        let before = env.provider.requestLog.count
        let relaunched = await env.relaunch()
        let stage = try await relaunched.restore()
        say.note(
            "restore() reached \(stage) with \(env.provider.requestLog.count - before) requests to the provider",
            at: env.clock.wallClockNow())
    }

    static let offlineLaunch = Scenario(
        name: "offline-launch", summary: "cold launch offline with a token due: signed in, the valid token used, recovery without sign-in"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(3550))
        // The first attempt waits for its 30 s deadline, so nothing it does can come before the
        // launch's own line; the next two cannot connect.
        env.provider.script(.timeout, on: .token)
        env.provider.script(.connectionFailure, on: .token, times: 2)
        say.note("relaunched with no network; the access token is valid for 50 s more", at: env.clock.wallClockNow())
        let relaunched = await env.relaunch()
        let stage = try await relaunched.restore()
        say.note("restore() returned at once: \(stage)", at: env.clock.wallClockNow())
        await env.clock.waitForSleepers(count: 1)
        env.clock.advance(by: .seconds(30))
        await env.waitUntil { env.retries.count == 1 }
        _ = try await relaunched.validAccessToken()
        say.note("validAccessToken() handed out the still-valid token while the refresh backs off", at: env.clock.wallClockNow())
        await env.clock.waitForSleepers(count: 1)
        env.clock.advance(by: .seconds(21))
        await env.waitUntil { env.retries.count == 2 }
        let caller = Task { try await relaunched.validAccessToken() }
        await env.waitUntil { relaunched.waitingCallerCount == 1 }
        await env.advanceToNextSleeper()
        if case .failure(let error as SessionError) = await Result(catching: { try await caller.value }) {
            say.note(
                "past its expiry: validAccessToken() threw \(error.code) (transient: \(error.isTransient))", at: env.clock.wallClockNow())
        }
        say.note("the network is back", at: env.clock.wallClockNow())
        _ = try await relaunched.validAccessToken()
        say.note(
            "validAccessToken() refreshed; no new sign-in (\(env.presenter.presentedRequests.count) in all)", at: env.clock.wallClockNow())
    }

    static let offlineExpired = Scenario(
        name: "offline-expired", summary: "cold launch offline with an expired token: still signed in, a transient error, then recovery"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(7200))
        // The first attempt waits for its 30 s deadline, so it cannot overtake the launch's line.
        env.provider.script(.timeout, on: .token)
        env.provider.script(.connectionFailure, on: .token, times: 2)
        say.note("relaunched with no network; the access token expired an hour ago", at: env.clock.wallClockNow())
        let relaunched = await env.relaunch()
        let stage = try await relaunched.restore()
        say.note("restore() returned at once: \(stage)", at: env.clock.wallClockNow())
        let caller = Task { try await relaunched.validAccessToken() }
        await env.waitUntil { relaunched.waitingCallerCount == 1 }
        await env.advanceToNextSleeper()
        await env.advanceToNextSleeper()
        await env.advanceToNextSleeper()
        if case .failure(let error as SessionError) = await Result(catching: { try await caller.value }) {
            say.note(
                "validAccessToken() threw \(error.code) (transient: \(error.isTransient)); stage \(relaunched.stage)",
                at: env.clock.wallClockNow())
        }
        _ = try await relaunched.validAccessToken()
        say.note("the network is back: validAccessToken() refreshed without a new sign-in", at: env.clock.wallClockNow())
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
