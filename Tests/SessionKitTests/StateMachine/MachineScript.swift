import Foundation
import Testing

@testable import SessionKit

/// Drives a `SessionStateMachine` one event per line and answers each event with its typed actions,
/// which compare with `==` against values such as `.refresh(generation: 2, previous: tokens)` or
/// `.resume([1, 2], .tokens(tokens))`; the constructors at the end of this file keep them short.
///
/// The `make…` helpers jump straight to a stage by feeding the real events that lead there (the
/// machine's state cannot be set from outside), so a script starts where its story starts. Callers
/// fed by the helpers are numbered from 90 up, so a script's own callers (1, 2, 3…) never collide
/// with them. Every event also checks the waiter contract: no caller is ever resumed twice.
struct MachineScript: CustomStringConvertible {
    typealias Machine = SessionStateMachine<ScriptTokens, Int>

    /// "Now" when every script starts; token expiries and request times are offsets from it.
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let issuer = "https://issuer.example"
    static let handoffTimeout: Duration = .seconds(300)
    static let leadTime: Duration = .seconds(60)
    /// How long a sign-out waits for the provider's end-session page, shorter than a sign-in.
    static let providerLogoutTimeout: Duration = .seconds(45)

    /// The caller of the sign-in the helpers perform.
    static let signInCaller = 90
    /// The caller of `makeRevoking()`'s sign-out.
    static let signOutCaller = 91
    /// The caller of `makeDisconnecting()`'s account deletion.
    static let deletionCaller = 92
    /// The caller of the restores the helpers perform.
    static let restoreCaller = 93

    private(set) var machine = Machine(
        configuration: .init(
            handoffTimeout: handoffTimeout, timing: RefreshTiming(leadTime: leadTime), providerLogoutTimeout: providerLogoutTimeout))
    /// The actions of the last event, for checks that need their structure.
    private(set) var lastActions: [Machine.Action] = []
    /// Whether the last callback fed was consumed.
    private(set) var lastCallbackConsumed = false
    /// Every timer the machine asked for, in order.
    private(set) var timersStarted: [TimerID] = []
    private var resumed: Set<Int> = []

    // MARK: - Reading the machine

    var stage: SessionStage { machine.stage }

    /// What a failed expectation prints: the stage and generation, never the sign-in parameters.
    var description: String { "script in \(stage), generation \(generation)" }
    var generation: UInt64 { machine.generation }

    /// The tokens the active session hands out, or `nil` when the session is not active.
    var activeTokens: ScriptTokens? {
        guard case .active(let active) = machine.state else { return nil }
        return active.tokens
    }

    /// The callers the current stage holds, in arrival order.
    var waiting: [Int] {
        let waiters: WaiterList<Int>
        switch machine.state {
        case .handoff(let handoff): waiters = handoff.waiters
        case .verifying(let verifying): waiters = verifying.waiters
        case .refreshing(let refreshing): waiters = refreshing.waiters
        case .revoking(let operation), .disconnecting(let operation): waiters = operation.waiters
        default: waiters = WaiterList()
        }
        return waiters.ordered
    }

    /// The `state` of the sign-in attempt waiting at the provider.
    var handoffState: String? {
        guard case .handoff(let handoff) = machine.state else { return nil }
        return handoff.attempt?.state
    }

    /// The timeout timer of the handoff in progress (a device sign-in's only while it requests its code).
    var handoffTimer: TimerID? {
        guard case .handoff(let handoff) = machine.state else { return nil }
        if case .device(.waitingToPoll) = handoff.payload { return nil }
        if case .device(.polling) = handoff.payload { return nil }
        return handoff.timer
    }

    /// The poll timer of a device sign-in waiting for its next poll.
    var devicePollTimer: TimerID? {
        guard case .handoff(let handoff) = machine.state, case .device(.waitingToPoll) = handoff.payload else { return nil }
        return handoff.timer
    }

    /// Where a device sign-in stands: `requestingCode`, `waitingToPoll` or `polling`.
    var devicePhase: String? {
        guard case .handoff(let handoff) = machine.state, case .device(let phase) = handoff.payload else { return nil }
        switch phase {
        case .requestingCode: return "requestingCode"
        case .waitingToPoll: return "waitingToPoll"
        case .polling: return "polling"
        }
    }

    /// The interval the device sign-in's planner waits now.
    var devicePollInterval: Duration? {
        guard case .handoff(let handoff) = machine.state, case .device(let phase) = handoff.payload else { return nil }
        switch phase {
        case .requestingCode: return nil
        case .waitingToPoll(let polling), .polling(let polling): return polling.planner.interval
        }
    }

    /// The timeout of a sign-out ending the provider's browser session.
    var logoutTimer: TimerID? {
        guard case .revoking(let operation) = machine.state else { return nil }
        return operation.logout?.timer
    }

    /// The backoff timer of the refresh, revocation or disconnect waiting to retry.
    var retryTimer: TimerID? {
        switch machine.state {
        case .refreshing(let refreshing): refreshing.retryTimer
        case .revoking(let operation), .disconnecting(let operation): operation.retryTimer
        default: nil
        }
    }

    /// The timers the current stage still waits for.
    var liveTimers: [TimerID] {
        [handoffTimer, devicePollTimer, retryTimer, logoutTimer].compactMap { $0 }
    }

    /// Timers started earlier that the current stage no longer waits for.
    var staleTimers: [TimerID] {
        timersStarted.filter { !liveTimers.contains($0) }
    }

    /// The fast path of `validAccessToken()`, at `seconds` after ``start``.
    func freshTokens(at seconds: Double = 0) -> ScriptTokens? {
        guard case .fresh(let tokens, let dueAt)? = machine.handout, Self.start.addingTimeInterval(seconds) < dueAt else { return nil }
        return tokens
    }

    // MARK: - Fixtures

    /// Sign-in attempt `number`; its `state` is `"state-<number>"`.
    static func attempt(_ number: Int) -> SignInAttempt {
        SignInAttempt(
            authorizationURL: URL(string: "https://issuer.example/authorize?attempt=\(number)")!,
            state: "state-\(number)", nonce: "nonce-\(number)", codeVerifier: "verifier-\(number)")
    }

    /// A verified token set whose access token expires `seconds` after ``start``; `refreshable`
    /// false for one the provider issued no refresh token with.
    static func tokens(_ name: String, expiresIn seconds: Double = 3600, subject: String = "alice", refreshable: Bool = true)
        -> ScriptTokens
    {
        ScriptTokens(name: name, accessTokenExpiresAt: start.addingTimeInterval(seconds), subject: subject, canRefresh: refreshable)
    }

    /// A guest session's key `name` for anonymous user `subject`, expiring `seconds` after ``start``.
    static func guestTokens(_ name: String, expiresIn seconds: Double = 3600, subject: String = "guest-1") -> ScriptTokens {
        ScriptTokens(
            name: name, accessTokenExpiresAt: start.addingTimeInterval(seconds), subject: subject, canRefresh: true, isGuest: true,
            isAnonymous: true)
    }

    /// A signed-in token set whose id_token says `previously_anonymous` (`promoted`) or not.
    static func signedInFromGuest(_ name: String, subject: String = "alice", promoted: Bool = true) -> ScriptTokens {
        ScriptTokens(
            name: name, accessTokenExpiresAt: start.addingTimeInterval(3600), subject: subject, wasPreviouslyAnonymous: promoted)
    }

    /// Device code `number` (user code `USER-<number>`), valid for `expiresIn` seconds, polled every `interval`.
    static func deviceAuthorization(_ number: Int = 1, expiresIn: Double = 600, interval: Double = 5) -> DeviceAuthorization {
        DeviceAuthorization(
            deviceCode: Secret("device-code-\(number)"), userCode: "USER-\(number)",
            verificationURI: URL(string: "https://issuer.example/device")!,
            verificationURIComplete: URL(string: "https://issuer.example/device?user_code=USER-\(number)")!, expiresIn: expiresIn,
            interval: interval)
    }

    /// The post-logout redirect URI the scripts' end-session requests name.
    static let postLogoutRedirectURI = URL(string: "com.example.app://oauth/logged-out")!

    /// End-session request `number`; its `state` is `"logout-<number>"`.
    static func endSessionOrder(_ number: Int = 1) -> EndSessionOrder {
        let request = try! EndSessionRequest(
            idTokenHint: nil, postLogoutRedirectURI: postLogoutRedirectURI, state: Secret("logout-\(number)"))
        return EndSessionOrder(request: request, url: URL(string: "https://issuer.example/logout?state=logout-\(number)")!)
    }

    /// The provider's return from end-session page `number`, or with another `state`.
    static func endSessionReturn(state: String? = "logout-1") -> URL {
        URL(string: postLogoutRedirectURI.absoluteString + (state.map { "?state=\($0)" } ?? ""))!
    }

    static func id(_ waiter: Int) -> WaiterID {
        WaiterID(raw: UInt64(waiter))
    }

    // MARK: - Events (one method per machine input)

    mutating func signIn(attempt number: Int = 1, waiter: Int) -> [Machine.Action] {
        let actions = machine.signIn(Self.attempt(number), id: Self.id(waiter), waiter: waiter)
        return record(actions)
    }

    /// A callback URL matching the redirect URI; the defaults answer attempt 1 with a code.
    mutating func callback(
        code: String? = "code-1", state: String? = "state-1", error: String? = nil, iss: String? = nil, repeated: [String] = []
    ) -> [Machine.Action] {
        let parameters = CallbackParameters(code: code, state: state, error: error, issuer: iss, repeatedNames: repeated)
        let (consumed, actions) = machine.callbackReceived(parameters, expectedIssuer: Self.issuer)
        lastCallbackConsumed = consumed
        return record(actions)
    }

    mutating func presenterEnded(_ error: HandoffError, generation: UInt64? = nil) -> [Machine.Action] {
        let actions = machine.presenterFailed(error, generation: generation ?? machine.generation)
        return record(actions)
    }

    mutating func timerFired(_ raw: UInt64) -> [Machine.Action] {
        timerFired(TimerID(raw: raw))
    }

    mutating func timerFired(_ id: TimerID) -> [Machine.Action] {
        let actions = machine.timerFired(id)
        return record(actions)
    }

    mutating func exchangeSucceeded(_ tokens: ScriptTokens, generation: UInt64? = nil) -> [Machine.Action] {
        let actions = machine.exchangeSucceeded(tokens, generation: generation ?? machine.generation)
        return record(actions)
    }

    mutating func exchangeFailed(_ error: SessionError, generation: UInt64? = nil) -> [Machine.Action] {
        let actions = machine.exchangeFailed(error, generation: generation ?? machine.generation)
        return record(actions)
    }

    /// `startGuestSession()`.
    mutating func startGuest(waiter: Int) -> [Machine.Action] {
        record(machine.guestSessionRequested(id: Self.id(waiter), waiter: waiter))
    }

    /// A guest session's first bootstrap issued `tokens` (`startedOver`: after a refused secret).
    mutating func guestBootstrapped(_ tokens: ScriptTokens, startedOver: Bool = false, generation: UInt64? = nil) -> [Machine.Action] {
        record(machine.guestBootstrapped(tokens, startedOver: startedOver, generation: generation ?? machine.generation))
    }

    /// A guest session's first bootstrap gave no key.
    mutating func guestBootstrapFailed(_ error: SessionError, generation: UInt64? = nil) -> [Machine.Action] {
        record(machine.guestBootstrapFailed(error, generation: generation ?? machine.generation))
    }

    /// The local wipe of a guest session ended.
    mutating func guestSessionEnded(
        _ result: Result<Void, CredentialStoreError> = .success(()), generation: UInt64? = nil
    ) -> [Machine.Action] {
        record(machine.guestSessionEnded(result, generation: generation ?? machine.generation))
    }

    /// `validAccessToken()` past its fast path, `seconds` after ``start``.
    mutating func tokenRequested(waiter: Int, at seconds: Double = 0) -> [Machine.Action] {
        let actions = machine.tokenRequested(id: Self.id(waiter), waiter: waiter, now: Self.start.addingTimeInterval(seconds), force: false)
        return record(actions)
    }

    /// A caller joins the refresh in flight from outside the actor; `true` when it now waits.
    mutating func joinRefresh(waiter: Int, at seconds: Double = 0) -> Bool {
        machine.joinRefresh(id: Self.id(waiter), waiter: waiter, now: Self.start.addingTimeInterval(seconds))
    }

    /// The attempt number of the refresh, revocation or disconnect in flight.
    var retryAttempt: Int? {
        switch machine.state {
        case .refreshing(let refreshing): refreshing.attempt
        case .revoking(let operation), .disconnecting(let operation): operation.attempt
        default: nil
        }
    }

    /// `refresh()`, `seconds` after ``start``.
    mutating func refreshRequested(waiter: Int, at seconds: Double = 0) -> [Machine.Action] {
        let actions = machine.tokenRequested(id: Self.id(waiter), waiter: waiter, now: Self.start.addingTimeInterval(seconds), force: true)
        return record(actions)
    }

    mutating func refreshSucceeded(_ tokens: ScriptTokens, generation: UInt64? = nil) -> [Machine.Action] {
        let actions = machine.refreshSucceeded(tokens, generation: generation ?? machine.generation)
        return record(actions)
    }

    /// A refresh failed, `seconds` after ``start``.
    mutating func refreshFailed(_ failure: RefreshFailure, generation: UInt64? = nil, at seconds: Double = 0) -> [Machine.Action] {
        let actions = machine.refreshFailed(
            failure, generation: generation ?? machine.generation, now: Self.start.addingTimeInterval(seconds))
        return record(actions)
    }

    mutating func cancel(waiter: Int) -> [Machine.Action] {
        let actions = machine.waiterCancelled(Self.id(waiter))
        return record(actions)
    }

    mutating func signOut(waiter: Int) -> [Machine.Action] {
        let actions = machine.signOut(id: Self.id(waiter), waiter: waiter)
        return record(actions)
    }

    mutating func deleteAccount(waiter: Int) -> [Machine.Action] {
        let actions = machine.deleteAccount(id: Self.id(waiter), waiter: waiter)
        return record(actions)
    }

    /// `restore()` found `plan`, `seconds` after ``start``.
    mutating func restore(_ plan: RestorePlan<ScriptTokens>, waiter: Int, at seconds: Double = 0) -> [Machine.Action] {
        let actions = machine.restoreLoaded(plan, now: Self.start.addingTimeInterval(seconds), id: Self.id(waiter), waiter: waiter)
        return record(actions)
    }

    mutating func serverConfirmed(subject: String? = nil, generation: UInt64? = nil, endSession: EndSessionPlan = .notRequested) -> [Machine
        .Action]
    {
        let actions = machine.serverOperationConfirmed(
            generation: generation ?? machine.generation, subject: subject, endSession: endSession)
        return record(actions)
    }

    mutating func serverNotJournaled(_ error: CredentialStoreError, generation: UInt64? = nil) -> [Machine.Action] {
        record(machine.serverOperationNotJournaled(error, generation: generation ?? machine.generation))
    }

    mutating func serverFailed(_ failure: ServerOperationFailure, generation: UInt64? = nil, endSession: EndSessionPlan = .notRequested)
        -> [Machine.Action]
    {
        let actions = machine.serverOperationFailed(failure, generation: generation ?? machine.generation, endSession: endSession)
        return record(actions)
    }

    mutating func deviceSignIn(waiter: Int) -> [Machine.Action] {
        let actions = machine.deviceSignIn(id: Self.id(waiter), waiter: waiter)
        return record(actions)
    }

    /// The provider answered the device code request `seconds` after ``start``.
    mutating func deviceCodeIssued(
        _ result: Result<DeviceAuthorization, SessionError> = .success(deviceAuthorization()), at seconds: Double = 0,
        generation: UInt64? = nil
    ) -> [Machine.Action] {
        let actions = machine.deviceCodeIssued(
            result, now: Self.start.addingTimeInterval(seconds), generation: generation ?? machine.generation)
        return record(actions)
    }

    /// The token endpoint answered a poll `seconds` after ``start``.
    mutating func devicePollAnswered(_ answer: DevicePollAnswer, at seconds: Double, generation: UInt64? = nil) -> [Machine.Action] {
        let actions = machine.devicePollAnswered(
            answer, now: Self.start.addingTimeInterval(seconds), generation: generation ?? machine.generation)
        return record(actions)
    }

    /// A URL that may be the provider's return from its end-session page; `redirectURI`: the one a presenter chose.
    mutating func endSessionReturned(_ url: URL, redirectURI: URL? = nil) -> [Machine.Action] {
        let (consumed, actions) = machine.endSessionReturned(url, redirectURI: redirectURI)
        lastCallbackConsumed = consumed
        return record(actions)
    }

    /// Tokens were added to the store's revocation queue.
    mutating func revocationsQueued() -> [Machine.Action] {
        record(machine.revocationsQueued())
    }

    /// An attempt at the first queued revocation ended.
    mutating func queuedRevocationAnswered(_ answer: QueuedRevocationAnswer) -> [Machine.Action] {
        record(machine.queuedRevocationAnswered(answer))
    }

    /// The owner shut the session down.
    mutating func shutDown() -> [Machine.Action] {
        record(machine.shutDown())
    }

    /// The machine found itself inconsistent (what a bug would do).
    mutating func inconsistency() -> [Machine.Action] {
        record(machine.stopAfterInconsistency())
    }

    private mutating func record(_ actions: [Machine.Action]) -> [Machine.Action] {
        lastActions = actions
        for action in actions {
            switch action {
            case .startTimer(let id, _):
                timersStarted.append(id)
            case .resume(let waiters, _):
                for waiter in waiters where !resumed.insert(waiter).inserted {
                    Issue.record("caller \(waiter) was resumed a second time")
                }
            default:
                break
            }
        }
        return actions
    }

    // MARK: - Jumping to a stage

    /// A machine that never left `signedOut`.
    static func makeSignedOut() -> MachineScript {
        MachineScript()
    }

    /// Sign-in attempt 1 waits at the provider: generation 1, handoff timer 1, caller 90.
    static func makeHandoff() -> MachineScript {
        var script = MachineScript()
        _ = script.signIn(attempt: 1, waiter: signInCaller)
        return script.checked(.handoff)
    }

    /// Attempt 1's code is being exchanged: generation 1, caller 90 waiting.
    static func makeVerifying() -> MachineScript {
        var script = makeHandoff()
        _ = script.callback()
        return script.checked(.verifying)
    }

    /// Signed in with tokens `A` (subject `alice`) that expire `seconds` after ``start``: generation 1.
    static func makeActive(expiresIn seconds: Double = 3600) -> MachineScript {
        var script = makeVerifying()
        _ = script.exchangeSucceeded(tokens("A", expiresIn: seconds))
        return script.checked(.active)
    }

    /// Tokens `A` are due in 30 s; `waiters` asked for a token, in order, and wait for refresh 1 of generation 1.
    static func makeRefreshing(waiters: [Int] = [1]) -> MachineScript {
        var script = makeActive(expiresIn: 30)
        for waiter in waiters {
            _ = script.tokenRequested(waiter: waiter)
        }
        return script.checked(.refreshing)
    }

    /// A cold launch found a stored session and refreshes it: generation 1, caller 93, no previous tokens.
    static func makeRestoring() -> MachineScript {
        var script = MachineScript()
        _ = script.restore(.incompleteSession, waiter: restoreCaller)
        return script.checked(.refreshing)
    }

    /// Caller 91 signed out of `makeActive()`; the revocation is in flight: generation 2.
    static func makeRevoking() -> MachineScript {
        var script = makeActive()
        _ = script.signOut(waiter: signOutCaller)
        return script.checked(.revoking)
    }

    /// Signed in with tokens `A` that came without a refresh token and expire `seconds` after ``start``.
    static func makeActiveWithoutRefreshToken(expiresIn seconds: Double = 3600) -> MachineScript {
        var script = makeVerifying()
        _ = script.exchangeSucceeded(tokens("A", expiresIn: seconds, refreshable: false))
        return script.checked(.active)
    }

    /// Caller 90 started a device sign-in; the code request is in flight: generation 1, timeout timer 1.
    static func makeDeviceRequesting() -> MachineScript {
        var script = MachineScript()
        _ = script.deviceSignIn(waiter: signInCaller)
        return script.checked(.handoff)
    }

    /// Device code 1 (600 s, every 5 s) was issued at ``start`` and shown; poll timer 2 runs.
    static func makeDeviceWaitingToPoll() -> MachineScript {
        var script = makeDeviceRequesting()
        _ = script.deviceCodeIssued()
        return script.checked(.handoff)
    }

    /// The first poll of `makeDeviceWaitingToPoll()` is in flight (5 s after ``start``).
    static func makeDevicePolling() -> MachineScript {
        var script = makeDeviceWaitingToPoll()
        _ = script.timerFired(2)
        return script.checked(.handoff)
    }

    /// The person approved the device sign-in of `makeDevicePolling()`: its tokens are being verified.
    static func makeDeviceVerifying() -> MachineScript {
        var script = makeDevicePolling()
        _ = script.devicePollAnswered(.tokens(TokenResponse(accessToken: Secret("device-access"))), at: 5)
        return script.checked(.verifying)
    }

    /// `makeRevoking()`'s revocation was confirmed and wiped; the provider's end-session page
    /// (order 1) is open, with timeout timer 2: generation 2, caller 91 waiting.
    static func makeEndingProviderSession() -> MachineScript {
        var script = makeRevoking()
        _ = script.serverConfirmed(endSession: .open(endSessionOrder()))
        return script.checked(.revoking)
    }

    /// Caller 92 deletes the account of `makeActive()`; the disconnect is in flight: generation 2.
    static func makeDisconnecting() -> MachineScript {
        var script = makeActive()
        _ = script.deleteAccount(waiter: deletionCaller)
        return script.checked(.disconnecting)
    }

    /// Caller 90 started a guest session; its bootstrap is in flight: generation 1.
    static func makeGuestBootstrapping() -> MachineScript {
        var script = MachineScript()
        _ = script.startGuest(waiter: signInCaller)
        return script.checked(.verifying)
    }

    /// A guest session with key `G` (anonymous user `guest-1`) expiring `seconds` after ``start``: generation 1.
    static func makeGuestActive(expiresIn seconds: Double = 3600) -> MachineScript {
        var script = makeGuestBootstrapping()
        _ = script.guestBootstrapped(guestTokens("G", expiresIn: seconds))
        return script.checked(.active)
    }

    /// `makeGuestActive()`'s key is due in 30 s; `waiters` wait for its renewal, of generation 1.
    static func makeGuestRenewing(waiters: [Int] = [1]) -> MachineScript {
        var script = makeGuestActive(expiresIn: 30)
        for waiter in waiters {
            _ = script.tokenRequested(waiter: waiter)
        }
        return script.checked(.refreshing)
    }

    /// Caller 94 signs in from `makeGuestActive()`: attempt 1 waits at the provider, generation 2.
    static func makeGuestSigningIn() -> MachineScript {
        var script = makeGuestActive()
        _ = script.signIn(attempt: 1, waiter: 94)
        return script.checked(.handoff)
    }

    /// The plain way into `stage`: the helper above for it; refreshing holds callers 2 and 3.
    static func make(_ stage: SessionStage) -> MachineScript {
        switch stage {
        case .signedOut: makeSignedOut()
        case .handoff: makeHandoff()
        case .verifying: makeVerifying()
        case .active: makeActive()
        case .refreshing: makeRefreshing(waiters: [2, 3])
        case .revoking: makeRevoking()
        case .disconnecting: makeDisconnecting()
        }
    }

    private func checked(_ expected: SessionStage) -> MachineScript {
        if stage != expected {
            Issue.record("the helper should reach \(expected) but the machine is in \(stage)")
        }
        return self
    }

    // MARK: - Lines

    /// One action as a short line, for failure messages; expectations compare the actions themselves.
    static func line(_ action: Machine.Action) -> String {
        switch action {
        case .present(let attempt, let generation, _): "present(\(attempt.state), gen \(generation))"
        case .cancelPresenter: "cancelPresenter"
        case .startTimer(let id, let after): "startTimer(\(id.raw), \(format(after)))"
        case .cancelTimer(let id): "cancelTimer(\(id.raw))"
        case .exchangeCode(let code, let attempt, let generation): "exchangeCode(\(code), \(attempt.state), gen \(generation))"
        case .refresh(let order): order.previous == nil ? "refresh(gen \(order.generation), restoring)" : "refresh(gen \(order.generation))"
        case .cancelRefresh: "cancelRefresh"
        case .revoke(let generation, let attempt): "revoke(gen \(generation), attempt \(attempt))"
        case .disconnect(let generation, let attempt): "disconnect(gen \(generation), attempt \(attempt))"
        case .deferRevocation: "deferRevocation"
        case .discardLateTokens(let tokens): "discardLateTokens(\(tokens.name))"
        case .requestDeviceCode(let generation, _): "requestDeviceCode(gen \(generation))"
        case .presentDeviceCode(let prompt, let generation, _): "presentDeviceCode(\(prompt.userCode), gen \(generation))"
        case .pollDeviceToken(let authorization, let generation, _): "pollDeviceToken(\(authorization.userCode), gen \(generation))"
        case .verifyDeviceTokens(_, let generation): "verifyDeviceTokens(gen \(generation))"
        case .presentEndSession(let order, let generation, _): "presentEndSession(\(order.url.query ?? ""), gen \(generation))"
        case .revokeQueued(let attempt): "revokeQueued(attempt \(attempt))"
        case .bootstrapGuest(let generation): "bootstrapGuest(gen \(generation))"
        case .renewGuestKey(let order): "renewGuestKey(gen \(order.generation), attempt \(order.attempt))"
        case .resetGuestCredential: "resetGuestCredential"
        case .endGuestSession(let generation): "endGuestSession(gen \(generation))"
        case .resume(let waiters, let result):
            "resume([\(waiters.map(String.init).joined(separator: ","))], \(describe(result)))"
        case .transition(let from, let to, let reason): "transition(\(from)→\(to): \(reason))"
        case .emit(let event): "emit(\(describe(event)))"
        }
    }

    static func describe(_ result: WaiterResult<ScriptTokens>) -> String {
        switch result {
        case .tokens(let tokens): "tokens(\(tokens.name))"
        case .done: "done"
        case .restored(let stage): "restored(\(stage))"
        case .failed(let error): "failed(\(describe(error)))"
        }
    }

    static func describe(_ error: SessionError) -> String {
        switch error.kind {
        case .authorizationDenied(let code): "authorizationDenied(\(code))"
        case .callbackRejected(let why): "callbackRejected(\(why))"
        case .verificationFailed(let failure): "verificationFailed(\(failure.code))"
        case .provider(let failure): "provider(\(failure.summary))"
        case .accountDeletionRefused(let status): "accountDeletionRefused(\(status))"
        case .storage(let failure): "storage(\(failure))"
        case .unsupported(let why): "unsupported(\(why))"
        case .invalidRequestOptions(let why): "invalidRequestOptions(\(why))"
        case .userInfoRejected(let why): "userInfoRejected(\(why.code))"
        default: caseName(error)
        }
    }

    /// The case name alone, as `SessionTransitionTable` names misuse errors.
    static func caseName(_ error: SessionError) -> String {
        switch error.kind {
        case .notSignedIn: "notSignedIn"
        case .signInInProgress: "signInInProgress"
        case .alreadySignedIn: "alreadySignedIn"
        case .signOutInProgress: "signOutInProgress"
        case .accountDeletionInProgress: "accountDeletionInProgress"
        case .cancelled: "cancelled"
        case .handoffTimedOut: "handoffTimedOut"
        case .authorizationDenied: "authorizationDenied"
        case .callbackRejected: "callbackRejected"
        case .presentationFailed: "presentationFailed"
        case .verificationFailed: "verificationFailed"
        case .provider: "provider"
        case .refreshTokenRejected: "refreshTokenRejected"
        case .accountDeletionRefused: "accountDeletionRefused"
        case .storage: "storage"
        case .unsupported: "unsupported"
        case .randomSourceFailed: "randomSourceFailed"
        case .invalidRequestOptions: "invalidRequestOptions"
        case .sessionExpired: "sessionExpired"
        case .deviceCodeExpired: "deviceCodeExpired"
        case .userInfoRejected: "userInfoRejected"
        case .storedSessionForeign: "storedSessionForeign"
        case .dpopKeyUnavailable: "dpopKeyUnavailable"
        case .anotherAccountInStore: "anotherAccountInStore"
        case .sessionFailed: "sessionFailed"
        case .shutDown: "shutDown"
        case .guestBootstrapFailed: "guestBootstrapFailed"
        }
    }

    static func describe(_ event: SessionEvent) -> String {
        switch event {
        case .transition(let transition):
            "transition(\(transition.from?.rawValue ?? "nil")→\(transition.to): \(transition.reason))"
        case .deleteUserData(let subject): "deleteUserData(\(subject))"
        case .subjectChanged(let from, let to, let absorbed):
            "subjectChanged(\(from)→\(to), absorbed [\(absorbed.joined(separator: ","))])"
        case .anonymousUserPromoted(let subject): "anonymousUserPromoted(\(subject))"
        case .guestStartedOver(let previous, let subject): "guestStartedOver(\(previous)→\(subject))"
        case .deferredRevocationCompleted: "deferredRevocationCompleted"
        case .providerLogout(let outcome): "providerLogout(\(outcome))"
        case .callbackRefused(let refusal): "callbackRefused(\(refusal))"
        case .credentialStoreFallback(let reason): "credentialStoreFallback(\(reason))"
        case .credentialStoreLocked: "credentialStoreLocked"
        case .sessionFailed: "sessionFailed"
        }
    }

    static func format(_ duration: Duration) -> String {
        let seconds = Machine.seconds(duration)
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
}

// MARK: - Expected actions

extension SessionStateMachine.Action where Tokens == ScriptTokens, Waiter == Int {
    /// The stage moved from `from` to `to` (or stayed, `from == to`) for `reason`.
    static func transition(_ from: SessionStage, _ to: SessionStage, _ reason: TransitionReason) -> Self {
        .transition(from: from, to: to, reason: reason)
    }

    /// Refresh attempt `attempt` of `generation`, refreshing `previous` (`nil` when restoring).
    static func refresh(generation: UInt64, attempt: Int = 1, previous: ScriptTokens?) -> Self {
        .refresh(SessionStateMachine.RefreshOrder(generation: generation, attempt: attempt, previous: previous))
    }

    /// Guest key renewal attempt `attempt` of `generation`, renewing `previous`.
    static func renewGuestKey(generation: UInt64, attempt: Int = 1, previous: ScriptTokens) -> Self {
        .renewGuestKey(SessionStateMachine.RefreshOrder(generation: generation, attempt: attempt, previous: previous))
    }

    // Work the machine may cancel carries a `CancelHandle`; handles compare equal, so these say
    // what is ordered and `SessionStateMachineCancelHandleTests` checks which handle is which.

    /// Show the authorization page for `attempt`.
    static func present(_ attempt: SignInAttempt, generation: UInt64) -> Self {
        .present(attempt, generation: generation, cancel: CancelHandle())
    }

    /// Show a device sign-in's code.
    static func presentDeviceCode(_ prompt: DeviceCodePrompt, generation: UInt64) -> Self {
        .presentDeviceCode(prompt, generation: generation, cancel: CancelHandle())
    }

    /// Open the provider's end-session page.
    static func presentEndSession(_ order: EndSessionOrder, generation: UInt64) -> Self {
        .presentEndSession(order, generation: generation, cancel: CancelHandle())
    }

    /// Ask for a device code.
    static func requestDeviceCode(generation: UInt64) -> Self {
        .requestDeviceCode(generation: generation, cancel: CancelHandle())
    }

    /// Poll the token endpoint for a device sign-in.
    static func pollDeviceToken(_ authorization: DeviceAuthorization, generation: UInt64) -> Self {
        .pollDeviceToken(authorization, generation: generation, cancel: CancelHandle())
    }

    /// End the handoff's (or a provider logout's) presentation and requests.
    static var cancelPresenter: Self { .cancelPresenter(CancelHandle()) }

    /// End the refresh attempt in flight.
    static var cancelRefresh: Self { .cancelRefresh(CancelHandle()) }

    /// Start timer `raw`, to fire after `after`.
    static func startTimer(_ raw: UInt64, after: Duration) -> Self {
        .startTimer(TimerID(raw: raw), after: after)
    }

    /// Timer `raw` is no longer needed.
    static func cancelTimer(_ raw: UInt64) -> Self {
        .cancelTimer(TimerID(raw: raw))
    }
}

extension ProviderError {
    /// An HTTP answer with `status` and, optionally, an OAuth `error` code; no body.
    static func answered(_ status: Int, _ error: String? = nil) -> ProviderError {
        .http(status: status, error: error, retryAfterSeconds: nil, excerpt: "")
    }
}
