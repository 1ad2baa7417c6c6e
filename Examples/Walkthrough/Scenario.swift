import Foundation
import SessionKit
import SessionKitTesting

/// One lifecycle scenario, run on the simulated provider in simulated time.
struct Scenario: Sendable {
    var name: String
    var summary: String
    var run: @Sendable (SimulatedSessionEnvironment, Narrator) async throws -> Void

    static let all: [Scenario] = [
        happyPath, concurrentRefresh, tamperedRefresh, outageSignOut, accountDeletion, deletionRefused, keyRotation, handoffTimeout,
        restoreAfterRelaunch, accessGranted, accessDeclined, accessRetryLater, accessClosed, credentialImport, importVersion,
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
        await waitUntil { await env.session.waitingCallerCount == 100 }
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
        await waitUntil { env.store.record.pendingRevocations.isEmpty }
        say.note("the rotated refresh token was revoked at the provider; store holds no session", at: env.clock.wallClockNow())
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
        await waitUntil { env.store.record.pendingRevocations.isEmpty }
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
        say.note("validAccessToken() still succeeds; the session is \(await env.session.stage)", at: env.clock.wallClockNow())
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
        name: "restore", summary: "cold launch: a new Session restores from the stored refresh token"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(600))
        say.note("the app is killed and relaunched; a new Session opens the same store", at: env.clock.wallClockNow())
        let relaunched = Session(
            configuration: env.configuration, transport: env.provider, store: env.store, presenter: env.presenter, clock: env.clock,
            wallClock: { [clock = env.clock] in clock.wallClockNow() })
        await relaunched.addObserver { say.event($0) }
        let stage = try await relaunched.restore()
        say.note("restore() reached \(stage)", at: env.clock.wallClockNow())
    }
}

/// Re-checks `condition` until it holds, letting other tasks run in between. Used only where the
/// condition is certain to become true (the work it waits for is already under way).
func waitUntil(_ condition: () async -> Bool) async {
    while await !condition() { await Task.yield() }
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
