import Foundation
import SessionKitCore
import SessionKitJOSE

@testable import SessionKit

/// A verified token set as the explorer sees it: a name for scripts, an expiry, a subject and the
/// flags the machine reads. No token value exists anywhere in the model.
struct ModelTokens: MachineTokens, Hashable {
    var name: String
    var accessTokenExpiresAt: Date
    var subject: String
    var canRefresh = true
    var isGuest = false
    var isAnonymous = false
    var wasPreviouslyAnonymous = false
}

/// The session state machine and everything around it that the explorer plays: the app's calls,
/// the shell's work (each ordered action in flight until it reports back, in any order), the
/// provider's and the store's answers, timers, cancellations and the clock.
///
/// Every piece of work the machine orders stays *in flight* until the explorer delivers one of its
/// possible results, at any later point: so every interleaving of results, including results that
/// arrive after the stage that ordered them ended (late results of an older generation), is
/// explored. Work the machine cancels may still report (a race the shell cannot rule out).
struct SessionMachineModel: ExplorableModel {
    typealias Machine = SessionStateMachine<ModelTokens, Int>

    /// "Now" when every script starts (the same as the machine scripts').
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let leadTime = 60.0
    static let lifetime = 3600.0
    /// At most this many callers wait at once: a caller that would wait beyond it is not offered.
    var maxWaiting: Int

    init(maxWaiting: Int = 2) {
        self.maxWaiting = maxWaiting
    }

    var name: String { "session state machine" }

    // MARK: - State

    enum Call: Hashable { case signIn, token, refresh, signOut, deleteAccount, guest, restore }

    enum WorkKind: Hashable {
        case exchange, refresh, renewal, bootstrap, endGuest, revoke, disconnect, presenter, endSessionPage, revokeQueued, storeWork
        case deviceCode, devicePoll
    }

    struct Work {
        var kind: WorkKind
        var generation: UInt64
        /// The handle that ends it, when it has one.
        var handle: ObjectIdentifier?
        var cancelled = false
        /// A refresh that restores at launch (no verified tokens before it).
        var restoring = false
        /// A revocation or disconnect that reported its journal could not be written.
        var reportedNotJournaled = false
    }

    struct State {
        var machine = Machine(
            configuration: .init(
                handoffTimeout: .seconds(300), timing: RefreshTiming(leadTime: .seconds(60)), providerLogoutTimeout: .seconds(45)))
        /// Seconds since ``start``.
        var now = 0.0
        var work: [Work] = []
        /// Timers started and neither fired nor cancelled.
        var timers: [UInt64] = []
        /// Timers cancelled whose sleep may still have ended first: each may fire once, late.
        var lateTimers: [UInt64] = []
        /// Callers suspended in the machine, and what they called.
        var waiting: [Int: Call] = [:]
        var nextCaller = 1
        var nextTokens = 1
        var nextAttempt = 1
        /// The stage the app was last told of.
        var reported = SessionStage.signedOut
        var shutDown = false
    }

    // MARK: - Inputs

    enum RestoreKind: CaseIterable { case nothing, fresh, due, expired, withoutRefreshToken, incomplete, foreign, signOut, deletion }
    enum CallbackKind: CaseIterable { case matching, forged, denied, repeated }
    enum Result: Hashable {
        case exchanged, exchangeFailed
        case refreshed, retry, gaveUp, rejected, permanent, startedOver
        case bootstrapped, bootstrapFailed, ended, endFailed
        case confirmed, confirmedThenLogout, transient, cannotTell, refused, storeLocked, storeFailed, notJournaled
        case presenterCancelled, presentationFailed
        case queueEmpty, queueRemoved, queueTransient
        case queued, nothingQueued
        case codeIssued, codeFailed
        case pollPending, pollSlowDown, pollApproved, pollDenied, pollExpired, pollTransient, pollRejected, pollCancelled
    }

    enum Input {
        case signIn, deviceSignIn, tokenRequested, refreshRequested, signOut, deleteAccount, startGuest
        case restore(RestoreKind)
        case callback(CallbackKind)
        case endSessionReturn
        case cancel(caller: Int)
        case shutDown
        case clockAdvances
        case result(work: Int, Result)
        case timerFires(UInt64)
    }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        var inputs: [Input] = []
        if state.waiting.count < maxWaiting {
            inputs += [.signIn, .deviceSignIn, .tokenRequested, .refreshRequested, .signOut, .deleteAccount, .startGuest]
            if state.machine.stage == .signedOut, !state.shutDown {
                inputs += RestoreKind.allCases.map { .restore($0) }
            } else {
                inputs.append(.restore(.nothing))
            }
        }
        if case .handoff = state.machine.state { inputs += CallbackKind.allCases.map { .callback($0) } }
        if case .revoking(let operation) = state.machine.state, operation.logout != nil { inputs.append(.endSessionReturn) }
        for caller in state.waiting.keys.sorted() { inputs.append(.cancel(caller: caller)) }
        if !state.shutDown { inputs.append(.shutDown) }
        if nextInstant(state) != nil { inputs.append(.clockAdvances) }
        for (index, work) in state.work.enumerated() {
            for result in results(of: work.kind) where !(result == .notJournaled && work.reportedNotJournaled) {
                // A poll reports `cancelled` only when the sign-in cancelled it.
                if result == .pollCancelled, !work.cancelled { continue }
                inputs.append(.result(work: index, result))
            }
        }
        for timer in (state.timers + state.lateTimers).sorted() { inputs.append(.timerFires(timer)) }
        return inputs
    }

    func results(of kind: WorkKind) -> [Result] {
        switch kind {
        case .exchange: [.exchanged, .exchangeFailed]
        case .refresh: [.refreshed, .retry, .gaveUp, .rejected, .permanent]
        case .renewal: [.refreshed, .startedOver, .retry, .gaveUp]
        case .bootstrap: [.bootstrapped, .bootstrapFailed]
        case .endGuest: [.ended, .endFailed]
        case .revoke: [.confirmed, .confirmedThenLogout, .transient, .cannotTell, .refused, .storeLocked, .storeFailed, .notJournaled]
        case .disconnect: [.confirmed, .transient, .cannotTell, .refused, .storeLocked, .storeFailed, .notJournaled]
        case .presenter: [.presenterCancelled, .presentationFailed]
        case .endSessionPage: [.presenterCancelled]
        case .revokeQueued: [.queueEmpty, .queueRemoved, .queueTransient]
        case .storeWork: [.queued, .nothingQueued]
        case .deviceCode: [.codeIssued, .codeFailed]
        case .devicePoll:
            [.pollPending, .pollSlowDown, .pollApproved, .pollDenied, .pollExpired, .pollTransient, .pollRejected, .pollCancelled]
        }
    }

    /// The next instant at which a token the machine holds becomes due or expires.
    func nextInstant(_ state: State) -> Double? {
        guard let tokens = heldTokens(state.machine) else { return nil }
        let expiry = tokens.accessTokenExpiresAt.timeIntervalSince(Self.start)
        return [expiry - Self.leadTime, expiry].filter { $0 > state.now }.min()
    }

    /// The one token set the machine holds, in whatever stage.
    func heldTokens(_ machine: Machine) -> ModelTokens? {
        switch machine.state {
        case .active(let active): active.tokens
        case .refreshing(let refreshing): refreshing.previous
        case .handoff(let handoff): handoff.guest
        case .verifying(let verifying): verifying.guest
        case .revoking(let operation), .disconnecting(let operation): operation.tokens
        case .signedOut, .modifying, .stopped: nil
        }
    }

    // MARK: - One step

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        let before = state
        var date: Date { Self.start.addingTimeInterval(state.now) }
        var actions: [Machine.Action] = []
        var stale = false
        var lateTimer = false
        var violations: [Violation] = []

        func newCaller(_ call: Call) -> Int {
            let id = state.nextCaller
            state.nextCaller += 1
            state.waiting[id] = call
            return id
        }

        switch input {
        case .signIn:
            let id = newCaller(.signIn)
            let attempt = Self.attempt(state.nextAttempt)
            state.nextAttempt += 1
            actions = state.machine.signIn(attempt, id: WaiterID(raw: UInt64(id)), waiter: id)
        case .deviceSignIn:
            let id = newCaller(.signIn)
            actions = state.machine.deviceSignIn(id: WaiterID(raw: UInt64(id)), waiter: id)
        case .tokenRequested:
            let id = newCaller(.token)
            actions = state.machine.tokenRequested(id: WaiterID(raw: UInt64(id)), waiter: id, now: date, force: false)
        case .refreshRequested:
            let id = newCaller(.refresh)
            actions = state.machine.tokenRequested(id: WaiterID(raw: UInt64(id)), waiter: id, now: date, force: true)
        case .signOut:
            let id = newCaller(.signOut)
            actions = state.machine.signOut(id: WaiterID(raw: UInt64(id)), waiter: id)
        case .deleteAccount:
            let id = newCaller(.deleteAccount)
            actions = state.machine.deleteAccount(id: WaiterID(raw: UInt64(id)), waiter: id)
        case .startGuest:
            let id = newCaller(.guest)
            actions = state.machine.guestSessionRequested(id: WaiterID(raw: UInt64(id)), waiter: id)
        case .restore(let kind):
            let id = newCaller(.restore)
            let plan = restorePlan(kind, state: &state)
            actions = state.machine.restoreLoaded(plan, now: date, id: WaiterID(raw: UInt64(id)), waiter: id)
        case .callback(let kind):
            let parameters = Self.callback(kind, attempt: Self.handoffAttempt(state.machine))
            actions = state.machine.callbackReceived(parameters, expectedIssuer: Self.issuer).actions
        case .endSessionReturn:
            actions = state.machine.endSessionReturned(Self.endSessionReturn).actions
        case .cancel(let id):
            actions = state.machine.waiterCancelled(WaiterID(raw: UInt64(id)))
        // The caller's task was cancelled: it is answered by the machine, or already was.
        case .shutDown:
            actions = state.machine.shutDown()
            state.shutDown = true
        case .clockAdvances:
            if let next = nextInstant(state) { state.now = next }
        case .timerFires(let raw):
            lateTimer = state.lateTimers.contains(raw)
            state.timers.removeAll { $0 == raw }
            state.lateTimers.removeAll { $0 == raw }
            actions = state.machine.timerFired(TimerID(raw: raw))
        case .result(let index, let result):
            let work = state.work[index]
            stale = work.kind != .revokeQueued && work.kind != .storeWork && work.generation != state.machine.generation
            if result == .notJournaled {
                state.work[index].reportedNotJournaled = true
            } else {
                state.work.remove(at: index)
            }
            actions = deliver(result, of: work, state: &state)
        }

        violations += check(before: before, input: input, actions: actions, after: &state, stale: stale, lateTimer: lateTimer)
        return violations
    }

    /// A token set the provider issues now, verified (the model's stand-in for the verifier's type).
    static func mint(_ state: inout State, subject: String, guest: Bool) -> ModelTokens {
        defer { state.nextTokens += 1 }
        return ModelTokens(
            name: "T\(state.nextTokens)", accessTokenExpiresAt: start.addingTimeInterval(state.now + lifetime), subject: subject,
            canRefresh: true, isGuest: guest, isAnonymous: guest)
    }

    private func deliver(_ result: Result, of work: Work, state: inout State) -> [Machine.Action] {
        let generation = work.generation
        let date = Self.start.addingTimeInterval(state.now)
        let previous = heldTokens(state.machine)
        switch (work.kind, result) {
        case (.exchange, .exchanged):
            let tokens = Self.mint(&state, subject: "alice", guest: false)
            return state.machine.exchangeSucceeded(tokens, generation: generation)
        case (.exchange, _):
            return state.machine.exchangeFailed(.verificationFailed(.badSignature), generation: generation)
        case (.refresh, .refreshed):
            let tokens = Self.mint(&state, subject: previous?.subject ?? "alice", guest: false)
            return state.machine.refreshSucceeded(tokens, generation: generation)
        case (.renewal, .refreshed):
            let tokens = Self.mint(&state, subject: previous?.subject ?? "guest-1", guest: true)
            return state.machine.refreshSucceeded(tokens, generation: generation)
        case (.renewal, .startedOver):
            let tokens = Self.mint(&state, subject: "guest-2", guest: true)
            return state.machine.refreshSucceeded(tokens, generation: generation)
        case (.refresh, .retry), (.renewal, .retry):
            return state.machine.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(5)), generation: generation, now: date)
        case (.refresh, .gaveUp), (.renewal, .gaveUp):
            return state.machine.refreshFailed(.transient(Self.unavailable, retryIn: nil), generation: generation, now: date)
        case (.refresh, .rejected):
            return state.machine.refreshFailed(.rejected(answer: Self.invalidGrant), generation: generation, now: date)
        case (.refresh, _), (.renewal, _):
            return state.machine.refreshFailed(.permanent(.verificationFailed(.badSignature)), generation: generation, now: date)
        case (.bootstrap, .bootstrapped):
            let tokens = Self.mint(&state, subject: "guest-1", guest: true)
            return state.machine.guestBootstrapped(tokens, startedOver: false, generation: generation)
        case (.bootstrap, _):
            return state.machine.guestBootstrapFailed(.provider(Self.unavailableError), generation: generation)
        case (.endGuest, .ended):
            return state.machine.guestSessionEnded(.success(()), generation: generation)
        case (.endGuest, _):
            return state.machine.guestSessionEnded(.failure(.ioFailure("io")), generation: generation)
        case (.revoke, .confirmed), (.disconnect, .confirmed):
            return state.machine.serverOperationConfirmed(generation: generation, subject: nil)
        case (.revoke, .confirmedThenLogout):
            return state.machine.serverOperationConfirmed(generation: generation, subject: nil, endSession: .open(Self.endSessionOrder))
        case (.revoke, .notJournaled), (.disconnect, .notJournaled):
            return state.machine.serverOperationNotJournaled(.noSpace, generation: generation)
        case (.revoke, _), (.disconnect, _):
            return state.machine.serverOperationFailed(Self.serverFailure(result), generation: generation)
        case (.presenter, .presentationFailed):
            return state.machine.presenterFailed(.presentationFailed("gone"), generation: generation)
        case (.presenter, _), (.endSessionPage, _):
            return state.machine.presenterFailed(.cancelled, generation: generation)
        case (.revokeQueued, .queueEmpty):
            return state.machine.queuedRevocationAnswered(.queueEmpty)
        case (.revokeQueued, .queueRemoved):
            return state.machine.queuedRevocationAnswered(.removed(told: true))
        case (.revokeQueued, _):
            return state.machine.queuedRevocationAnswered(.transient(retryIn: .seconds(5)))
        case (.storeWork, .queued):
            return state.machine.revocationsQueued()
        case (.storeWork, _):
            return []
        case (.deviceCode, .codeIssued):
            return state.machine.deviceCodeIssued(.success(Self.deviceAuthorization), now: date, generation: generation)
        case (.deviceCode, _):
            return state.machine.deviceCodeIssued(.failure(Self.unavailable), now: date, generation: generation)
        case (.devicePoll, _):
            return state.machine.devicePollAnswered(Self.pollAnswer(result), now: date, generation: generation)
        }
    }

    static func serverFailure(_ result: Result) -> ServerOperationFailure {
        switch result {
        case .transient: .transient(unavailableError, retryIn: .seconds(5))
        case .cannotTell: .cannotTell(.revocation)
        case .refused: .refused(status: 403)
        case .storeLocked: .storage(.locked("locked"))
        default: .storage(.ioFailure("io"))
        }
    }

    private func restorePlan(_ kind: RestoreKind, state: inout State) -> RestorePlan<ModelTokens> {
        let date = Self.start.addingTimeInterval(state.now)
        func stored(_ expiresIn: Double, refreshable: Bool = true) -> ModelTokens {
            defer { state.nextTokens += 1 }
            return ModelTokens(
                name: "T\(state.nextTokens)", accessTokenExpiresAt: date.addingTimeInterval(expiresIn), subject: "alice",
                canRefresh: refreshable)
        }
        switch kind {
        case .nothing: return .nothing
        case .fresh: return .session(stored(Self.lifetime))
        case .due: return .session(stored(30))
        case .expired: return .session(stored(-10))
        case .withoutRefreshToken: return .session(stored(Self.lifetime, refreshable: false))
        case .incomplete: return .incompleteSession
        case .foreign: return .foreignSession(.issuer)
        case .signOut: return .pending(.signOut)
        case .deletion: return .pending(.deleteAccount)
        }
    }

    // MARK: - Invariants

    /// Every invariant, after one step; the actions are also applied to the model's world here.
    private func check(
        before: State, input: Input, actions: [Machine.Action], after state: inout State, stale: Bool, lateTimer: Bool
    ) -> [Violation] {
        var violations: [Violation] = []
        let stage = state.machine.stage
        let from = before.machine.stage
        var reported = before.reported
        // What each caller answered in this step called (the new caller included).
        let calls = state.waiting

        for action in actions {
            switch action {
            case .transition(let from, let to, _):
                if from != reported {
                    violations.append(.init("stageReported", "a transition from \(from) was reported while the app was told \(reported)"))
                }
                reported = to
            case .resume(let waiters, let result):
                for waiter in waiters where state.waiting.removeValue(forKey: waiter) == nil {
                    violations.append(.init("waitersAnsweredOnce", "caller \(waiter) was answered a second time"))
                }
                if case .tokens(let tokens) = result {
                    violations += checkHandout(tokens, to: waiters, state: state, calls: calls)
                }
            case .emit(.sessionFailed):
                violations.append(.init("noInputCrashes", "the machine found itself inconsistent and stopped"))
            case .emit:
                break
            case .startTimer(let id, _):
                state.timers.append(id.raw)
            case .cancelTimer(let id):
                if let index = state.timers.firstIndex(of: id.raw) {
                    state.timers.remove(at: index)
                    state.lateTimers.append(id.raw)
                }
            case .present(_, let generation, let cancel):
                state.work.append(Work(kind: .presenter, generation: generation, handle: ObjectIdentifier(cancel.token)))
            case .presentEndSession(_, let generation, let cancel):
                state.work.append(Work(kind: .endSessionPage, generation: generation, handle: ObjectIdentifier(cancel.token)))
            case .cancelPresenter(let handle), .cancelRefresh(let handle):
                for index in state.work.indices where state.work[index].handle == ObjectIdentifier(handle.token) {
                    state.work[index].cancelled = true
                }
            case .exchangeCode(_, _, let generation):
                state.work.append(Work(kind: .exchange, generation: generation))
            case .refresh(let order):
                state.work.append(
                    Work(
                        kind: .refresh, generation: order.generation, handle: ObjectIdentifier(order.cancel.token),
                        restoring: order.previous == nil))
            case .renewGuestKey(let order):
                state.work.append(Work(kind: .renewal, generation: order.generation, handle: ObjectIdentifier(order.cancel.token)))
            case .bootstrapGuest(let generation):
                state.work.append(Work(kind: .bootstrap, generation: generation))
            case .endGuestSession(let generation):
                state.work.append(Work(kind: .endGuest, generation: generation))
            case .revoke(let generation, _):
                state.work.append(Work(kind: .revoke, generation: generation))
            case .disconnect(let generation, _):
                state.work.append(Work(kind: .disconnect, generation: generation))
            case .revokeQueued:
                state.work.append(Work(kind: .revokeQueued, generation: 0))
            case .deferRevocation, .discardLateTokens:
                state.work.append(Work(kind: .storeWork, generation: 0))
            case .resetGuestCredential:
                break
            case .requestDeviceCode(let generation, let cancel):
                state.work.append(Work(kind: .deviceCode, generation: generation, handle: ObjectIdentifier(cancel.token)))
            case .pollDeviceToken(_, let generation, let cancel):
                state.work.append(Work(kind: .devicePoll, generation: generation, handle: ObjectIdentifier(cancel.token)))
            case .presentDeviceCode(_, let generation, let cancel):
                state.work.append(Work(kind: .presenter, generation: generation, handle: ObjectIdentifier(cancel.token)))
            case .verifyDeviceTokens(_, let generation):
                // Verified like a code exchange's answer, and reported the same way.
                state.work.append(Work(kind: .exchange, generation: generation))
            }
        }
        if case .shutDown = input {
            // The owner's shutdown ends every child: no work or timer reports after it.
            state.work.removeAll()
            state.timers.removeAll()
            state.lateTimers.removeAll()
        }
        state.reported = reported

        // The stage reported to the app always equals the machine's stage.
        if reported != stage {
            violations.append(.init("stageReported", "the app was last told \(reported), the machine is in \(stage)"))
        }
        // No input crashes (a debug build stops at the assertion; a release build stops the session).
        if case .stopped(let error) = state.machine.state, error == .sessionFailed {
            if !violations.contains(where: { $0.invariant == "noInputCrashes" }) {
                violations.append(.init("noInputCrashes", "the machine stopped after finding itself inconsistent"))
            }
        }
        // Every waiting caller is answered exactly once: those the machine holds are exactly those
        // still waiting, so none is forgotten and none is answered twice.
        let held = heldCallers(state.machine).sorted()
        let waiting = state.waiting.keys.sorted()
        if held != waiting {
            for lost in Set(waiting).subtracting(held).sorted() {
                violations.append(
                    .init("waitersAnsweredOnce", "caller \(lost) waits, but the machine no longer holds it: it will never be answered"))
            }
            for ghost in Set(held).subtracting(waiting).sorted() {
                violations.append(.init("waitersAnsweredOnce", "the machine holds caller \(ghost), which was already answered"))
            }
        }
        // Every timer that is set is either fired or cancelled: the timers still running are
        // exactly those the machine waits for.
        let live = liveTimers(state.machine).sorted()
        if live != state.timers.sorted() {
            for leaked in Set(state.timers).subtracting(live).sorted() {
                violations.append(
                    .init("timersFiredOrCancelled", "timer \(leaked) runs, but the machine no longer waits for it and never cancelled it"))
            }
            for missing in Set(live).subtracting(state.timers).sorted() {
                violations.append(.init("timersFiredOrCancelled", "the machine waits for timer \(missing), which is not running"))
            }
        }
        // DESIGN 1: one token request in flight per session (a device sign-in's poll is one).
        let refreshes = state.work.filter { ($0.kind == .refresh || $0.kind == .renewal || $0.kind == .devicePoll) && !$0.cancelled }
        if refreshes.count > 1 {
            violations.append(
                .init("oneTokenRequestInFlight", "\(refreshes.count) refreshes or device polls are in flight, none of them cancelled"))
        }
        // DESIGN 5: nothing from an older generation changes state.
        if stale || lateTimer {
            if !sameMachine(before.machine, state.machine) {
                violations.append(.init("lateResultsDropped", "a result of an older generation (or a cancelled timer) changed the machine"))
            } else if actions.contains(where: { if case .discardLateTokens = $0 { false } else { true } }) {
                violations.append(.init("lateResultsDropped", "a result of an older generation (or a cancelled timer) ordered work"))
            }
        }
        // DESIGN 8: a transient failure never ends a session.
        if isTransient(input, before: before) {
            let wasSignedIn = before.machine.currentTokens != nil
            if wasSignedIn, stage != .active, stage != .refreshing {
                violations.append(.init("transientNeverEndsSession", "a failure that may pass moved a signed-in session to \(stage)"))
            }
            let ending = from == .revoking || from == .disconnecting
            if ending, stage != from {
                violations.append(.init("transientNeverEndsSession", "a failure that may pass ended \(from) in \(stage)"))
            }
        }
        // DESIGN 4: server first, then local.
        if from == .revoking || from == .disconnecting, stage == .signedOut, !endsServerFirst(input, before: before, actions: actions) {
            violations.append(
                .init("serverFirst", "\(from) ended in signedOut without the provider's confirmation or a reason it cannot be told"))
        }
        return violations
    }

    /// DESIGN 2 (and 4, 8): tokens are handed out only while the session holds them as its
    /// verified tokens, never while it ends, and never expired to a caller that asked for a token.
    private func checkHandout(_ tokens: ModelTokens, to waiters: [Int], state: State, calls: [Int: Call]) -> [Violation] {
        var violations: [Violation] = []
        let stage = state.machine.stage
        if stage == .revoking || stage == .disconnecting {
            violations.append(.init("serverFirst", "tokens \(tokens.name) were handed out in \(stage)"))
        }
        if heldTokens(state.machine) != tokens {
            violations.append(
                .init(
                    "verifiedBeforeUse",
                    "tokens \(tokens.name) were handed out, but the session holds \(heldTokens(state.machine)?.name ?? "none") in \(stage)")
            )
        }
        let date = Self.start.addingTimeInterval(state.now)
        for waiter in waiters where calls[waiter] == .token {
            if tokens.accessTokenExpiresAt <= date {
                violations.append(
                    .init("verifiedBeforeUse", "caller \(waiter) asked for a valid token and was handed expired tokens \(tokens.name)"))
            }
        }
        return violations
    }

    private func isTransient(_ input: Input, before: State) -> Bool {
        guard case .result(let index, let result) = input else { return false }
        let work = before.work[index]
        guard work.generation == before.machine.generation else { return false }
        return result == .retry || result == .gaveUp || result == .transient
    }

    /// What may end a sign-out or deletion: the provider's answer (confirmed, cannot be told,
    /// refused), the store failing, a guest's local wipe, the provider logout after the wipe, a
    /// new sign-in that defers the revocation, or shutdown.
    private func endsServerFirst(_ input: Input, before: State, actions: [Machine.Action]) -> Bool {
        switch input {
        case .result(let index, let result):
            let work = before.work[index]
            switch result {
            case .confirmed, .confirmedThenLogout, .cannotTell, .refused, .storeFailed, .storeLocked, .ended: return true
            case .presenterCancelled: return work.kind == .endSessionPage
            default: return false
            }
        case .endSessionReturn, .shutDown: return true
        case .timerFires:
            if case .revoking(let operation) = before.machine.state, operation.logout != nil { return true }
            return false
        case .signIn: return actions.contains { if case .deferRevocation = $0 { true } else { false } }
        default: return false
        }
    }

    // MARK: - Reading the machine

    func heldCallers(_ machine: Machine) -> [Int] {
        // The model's callers are their own ids.
        let ids: [WaiterID] =
            switch machine.state {
            case .handoff(let handoff): handoff.waiters.waitingIDs
            case .verifying(let verifying): verifying.waiters.waitingIDs
            case .refreshing(let refreshing): refreshing.waiters.waitingIDs
            case .revoking(let operation), .disconnecting(let operation): operation.waiters.waitingIDs
            case .signedOut, .active, .modifying, .stopped: []
            }
        return ids.map { Int($0.raw) }
    }

    func liveTimers(_ machine: Machine) -> [UInt64] {
        var timers: [UInt64] = []
        switch machine.state {
        case .handoff(let handoff):
            // While a device poll is in flight, the timer that started it has fired and none runs.
            if case .device(.polling) = handoff.payload { break }
            timers.append(handoff.timer.raw)
        case .refreshing(let refreshing): if let timer = refreshing.retryTimer { timers.append(timer.raw) }
        case .revoking(let operation), .disconnecting(let operation):
            if let timer = operation.retryTimer { timers.append(timer.raw) }
            if let logout = operation.logout { timers.append(logout.timer.raw) }
        case .signedOut, .verifying, .active, .modifying, .stopped: break
        }
        if case .waiting(let timer, _) = machine.revocationQueue.phase { timers.append(timer.raw) }
        return timers
    }

    private func sameMachine(_ lhs: Machine, _ rhs: Machine) -> Bool {
        var left = CanonicalForm()
        var right = CanonicalForm()
        var labels = Labels()
        writeMachine(lhs, into: &left, labels: &labels)
        var others = Labels()
        writeMachine(rhs, into: &right, labels: &others)
        return left.fingerprint == right.fingerprint && lhs.generation == rhs.generation
    }

    // MARK: - Canonical form

    /// Relabels timers and callers in order of first appearance, so states that differ only in
    /// the counters behind their ids are one state.
    struct Labels {
        var timers: [UInt64] = []
        var callers: [Int] = []
        mutating func timer(_ raw: UInt64) -> Int {
            if let label = timers.firstIndex(of: raw) { return label }
            timers.append(raw)
            return timers.count - 1
        }
        mutating func caller(_ raw: Int) -> Int {
            if let label = callers.firstIndex(of: raw) { return label }
            callers.append(raw)
            return callers.count - 1
        }
    }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        var labels = Labels()
        writeMachine(state.machine, into: &form, labels: &labels, now: state.now)
        form.tag(20)
        for raw in state.timers.sorted() { form.write(labels.timer(raw)) }
        form.tag(21)
        for raw in state.lateTimers.sorted() { form.write(labels.timer(raw)) }
        form.tag(22)
        for (caller, call) in state.waiting.sorted(by: { $0.key < $1.key }) {
            form.write(labels.caller(caller))
            form.write(Self.code(call))
        }
        form.tag(23)
        let generation = state.machine.generation
        var work: [Int] = []
        work.reserveCapacity(state.work.count)
        for item in state.work {
            let age = item.kind == .revokeQueued || item.kind == .storeWork ? 0 : (item.generation == generation ? 1 : 2)
            let flags = (item.cancelled ? 4 : 0) | (item.restoring ? 2 : 0) | (item.reportedNotJournaled ? 1 : 0)
            work.append(Self.code(item.kind) << 8 | age << 4 | flags)
        }
        for item in work.sorted() { form.write(item) }
        form.tag(24)
        form.write(Self.code(state.reported))
        form.write(state.shutDown)
    }

    private func writeMachine(_ machine: Machine, into form: inout CanonicalForm, labels: inout Labels, now: Double = 0) {
        func tokens(_ tokens: ModelTokens?) {
            guard let tokens else { return form.write(0) }
            let expiry = tokens.accessTokenExpiresAt.timeIntervalSince(Self.start)
            // Time is symbolic: only where "now" lies against the token's due and expiry instants matters.
            let phase = now < expiry - Self.leadTime ? 1 : (now < expiry ? 2 : 3)
            form.write(phase)
            form.write(Self.subjectCode(tokens.subject))
            form.write(tokens.canRefresh)
            form.write(tokens.isGuest)
        }
        func waiters(_ list: WaiterList<Int>, forced: Set<WaiterID> = []) {
            // The model's callers are their own ids.
            let ids = list.waitingIDs
            form.write(ids.count)
            for id in ids {
                form.write(labels.caller(Int(id.raw)))
                if !forced.isEmpty { form.write(forced.contains(id)) }
            }
        }
        func timer(_ id: TimerID?) {
            form.write(id.map { labels.timer($0.raw) + 1 } ?? 0)
        }
        switch machine.state {
        case .signedOut:
            form.tag(1)
        case .handoff(let handoff):
            form.tag(2)
            timer(handoff.timer)
            waiters(handoff.waiters)
            tokens(handoff.guest)
            // A browser sign-in's attempt is its generation's (the callbacks name it); a device
            // sign-in writes its phase and everything its poll planner decides by: the interval,
            // the failures in a row, whether it decided, and the time since the code was issued.
            func polling(_ polling: DevicePolling) {
                form.write(Int(polling.planner.interval.components.seconds))
                form.write(polling.planner.consecutiveTransientFailures)
                form.write(polling.planner.outcome != nil)
                form.write(Int(Self.start.addingTimeInterval(now).timeIntervalSince(polling.receivedAt).rounded()))
            }
            switch handoff.payload {
            case .authorization: form.write(1)
            case .device(.requestingCode): form.write(2)
            case .device(.waitingToPoll(let value)):
                form.write(3)
                polling(value)
            case .device(.polling(let value)):
                form.write(4)
                polling(value)
            }
        case .verifying(let verifying):
            form.tag(3)
            form.write(verifying.attempt != nil)
            waiters(verifying.waiters)
            tokens(verifying.guest)
            form.write(verifying.bootstrapsGuest)
        case .active(let active):
            form.tag(4)
            tokens(active.tokens)
        case .refreshing(let refreshing):
            form.tag(5)
            tokens(refreshing.previous)
            waiters(refreshing.waiters, forced: refreshing.forced)
            timer(refreshing.retryTimer)
        case .revoking(let operation), .disconnecting(let operation):
            if case .revoking = machine.state { form.tag(6) } else { form.tag(7) }
            tokens(operation.tokens)
            timer(operation.retryTimer)
            waiters(operation.waiters)
            timer(operation.logout?.timer)
        case .modifying:
            form.tag(8)
        case .stopped(let error):
            form.tag(9)
            form.write(error == .shutDown)
        }
        switch machine.revocationQueue.phase {
        case .idle: form.write(0)
        case .revoking: form.write(1)
        case .waiting(let id, _):
            form.write(2)
            timer(id)
        }
        form.write(machine.revocationQueue.queuedMeanwhile)
    }

    static func code(_ call: Call) -> Int {
        switch call {
        case .signIn: 1
        case .token: 2
        case .refresh: 3
        case .signOut: 4
        case .deleteAccount: 5
        case .guest: 6
        case .restore: 7
        }
    }

    static func code(_ kind: WorkKind) -> Int {
        switch kind {
        case .exchange: 1
        case .refresh: 2
        case .renewal: 3
        case .bootstrap: 4
        case .endGuest: 5
        case .revoke: 6
        case .disconnect: 7
        case .presenter: 8
        case .endSessionPage: 9
        case .revokeQueued: 10
        case .storeWork: 11
        case .deviceCode: 12
        case .devicePoll: 13
        }
    }

    static func code(_ stage: SessionStage) -> Int {
        // A switch, not `allCases.firstIndex`: this runs for every state, and the list is built anew each time.
        switch stage {
        case .signedOut: 0
        case .handoff: 1
        case .verifying: 2
        case .active: 3
        case .refreshing: 4
        case .revoking: 5
        case .disconnecting: 6
        }
    }

    // MARK: - Fixtures (the machine scripts' own, so a printed script replays exactly)

    static let issuer = "https://issuer.example"
    static let unavailableError = ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")
    static let unavailable = SessionError.provider(unavailableError)
    static let invalidGrant = ProviderError.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")
    static let postLogoutRedirectURI = URL(string: "com.example.app://oauth/logged-out")!
    static let endSessionOrder: EndSessionOrder = {
        let request = try! EndSessionRequest(idTokenHint: nil, postLogoutRedirectURI: postLogoutRedirectURI, state: Secret("logout-1"))
        return EndSessionOrder(request: request, url: URL(string: "https://issuer.example/logout?state=logout-1")!)
    }()
    static let endSessionReturn = URL(string: postLogoutRedirectURI.absoluteString + "?state=logout-1")!

    /// The device code the provider issues (the machine scripts' `deviceAuthorization()`).
    static let deviceAuthorization = DeviceAuthorization(
        deviceCode: Secret("device-code-1"), userCode: "USER-1", verificationURI: URL(string: "https://issuer.example/device")!,
        verificationURIComplete: URL(string: "https://issuer.example/device?user_code=USER-1")!, expiresIn: 600, interval: 5)

    /// What the token endpoint answers a device poll with.
    static func pollAnswer(_ result: Result) -> DevicePollAnswer {
        switch result {
        case .pollSlowDown: .slowDown
        case .pollApproved: .tokens(TokenResponse(accessToken: Secret("device-access"), expiresIn: 3600))
        case .pollDenied: .accessDenied
        case .pollExpired: .expiredToken
        case .pollTransient: .transientFailure(retryAfter: nil)
        case .pollRejected: .rejected(invalidGrant)
        case .pollCancelled: .cancelled
        default: .authorizationPending
        }
    }

    /// The subjects the model's provider issues, as canonical codes.
    static func subjectCode(_ subject: String) -> Int {
        switch subject {
        case "alice": 0
        case "guest-1": 1
        case "guest-2": 2
        default: 9
        }
    }

    /// The first attempts, made once: a sign-in is fed in most states, and an attempt parses a URL.
    static let firstAttempts = (0..<16).map(makeAttempt)

    static func attempt(_ number: Int) -> SignInAttempt {
        firstAttempts.indices.contains(number) ? firstAttempts[number] : makeAttempt(number)
    }

    static func makeAttempt(_ number: Int) -> SignInAttempt {
        SignInAttempt(
            authorizationURL: URL(string: "https://issuer.example/authorize?attempt=\(number)")!,
            state: "state-\(number)", nonce: "nonce-\(number)", codeVerifier: "verifier-\(number)")
    }

    static func handoffAttempt(_ machine: Machine) -> String {
        if case .handoff(let handoff) = machine.state, let attempt = handoff.attempt { return attempt.state }
        return "state-0"
    }

    static func callback(_ kind: CallbackKind, attempt state: String) -> CallbackParameters {
        switch kind {
        case .matching: CallbackParameters(code: "code-1", state: state)
        case .forged: CallbackParameters(code: "code-1", state: "forged")
        case .denied: CallbackParameters(code: nil, state: state, error: "access_denied")
        case .repeated: CallbackParameters(code: "code-1", state: state, repeatedNames: ["code"])
        }
    }
}
