import Foundation

/// Identifies one suspended caller, so its cancellation removes only that caller.
struct WaiterID: Hashable, Sendable, Comparable {
    var raw: UInt64
    static func < (lhs: WaiterID, rhs: WaiterID) -> Bool { lhs.raw < rhs.raw }
}

/// Identifies one timer the machine asked for; a fired timer with a stale id is ignored.
struct TimerID: Hashable, Sendable {
    var raw: UInt64
}

/// What the machine needs to know about a verified token set.
protocol MachineTokens: Sendable {
    /// When the access token expires.
    var accessTokenExpiresAt: Date { get }
    /// The verified effective subject (`canonical_sub ?? sub`), for transition reasons and events.
    var subject: String { get }
    /// Subjects the provider merged into this one (`linked_subs`).
    var linkedSubjects: [String] { get }
    /// Whether the account is anonymous.
    var isAnonymous: Bool { get }
}

extension MachineTokens {
    /// No merged subjects unless the token set says so.
    var linkedSubjects: [String] { [] }
    /// Not anonymous unless the token set says so.
    var isAnonymous: Bool { false }
}

/// The parameters of one sign-in attempt, all from the CSPRNG; they live only in the handoff.
struct SignInAttempt: Sendable, Equatable {
    var authorizationURL: URL
    var state: String
    var nonce: String
    var codeVerifier: String
    /// The PKCE challenge, to render the request for a presenter's own redirect URI.
    var codeChallenge = ""
    /// The redirect URI the callback arrived at, when a presenter chose its own (loopback).
    var redirectURI: URL?
}

/// The query parameters of a callback URL that matched the redirect URI.
struct CallbackParameters: Sendable, Equatable {
    var code: String?
    var state: String?
    var error: String?
    var issuer: String?
    /// The presenter's own redirect URI the callback arrived at; `nil` for the configured one.
    var redirectURI: URL?
}

/// What a caller waiting on the machine is eventually resumed with.
enum WaiterResult<Tokens> {
    case tokens(Tokens)
    case done
    case failed(SessionError)
}

/// What restore found in the store.
enum RestorePlan: Sendable, Equatable {
    case nothing
    case session
    case pending(PendingOperation)
}

/// Why a refresh attempt failed, as the shell classified it.
enum RefreshFailure: Sendable, Equatable {
    /// May pass; `retryIn` is the backoff delay, or `nil` when the retry policy gave up.
    case transient(SessionError, retryIn: Duration?)
    /// The session is over: refresh token refused, id_token rejected, store failed.
    case permanent(SessionError)
}

/// Why a server-first operation (revoke, disconnect) failed, as the shell classified it.
enum ServerOperationFailure: Sendable, Equatable {
    /// May pass; retried after `retryIn`.
    case transient(String, retryIn: Duration)
    /// The provider refused (401/403 on disconnect): credentials are kept.
    case refused(status: Int)
    /// The provider cannot be told (no endpoint, or a permanent refusal of a revocation).
    case cannotTell(String)
    /// The store failed while journaling or completing.
    case storage(CredentialStoreError)
}

/// The pure heart of a session: `(stage, event) -> (stage, [action])`.
///
/// No I/O, no `await`, no clock reads: the owner (the `Session` actor) feeds events, performs the
/// returned actions, and feeds their results back as events. Every stage carries its own data, so
/// impossible combinations cannot be written down. Invalid events follow one taxonomy: misuse by
/// the app resumes the caller with a thrown ``SessionError``; a harmless race is a no-op with a
/// comment; a result from an older generation is dropped (DESIGN invariant 5).
struct SessionStateMachine<Tokens: MachineTokens, Waiter> {
    struct Handoff {
        var attempt: SignInAttempt
        var timer: TimerID
        var waiters: WaiterList<Waiter>
    }

    struct Verifying {
        var attempt: SignInAttempt
        var waiters: WaiterList<Waiter>
    }

    struct Active {
        var tokens: Tokens
    }

    struct Refreshing {
        /// The tokens in use before the refresh; `nil` when restoring at cold launch.
        var previous: Tokens?
        var waiters: WaiterList<Waiter>
        var attempt: Int
        var retryTimer: TimerID?
    }

    struct ServerOperation {
        /// The tokens to return to if the provider refuses (disconnect only).
        var tokens: Tokens?
        var attempt: Int
        var retryTimer: TimerID?
        var waiters: WaiterList<Waiter>
    }

    enum State {
        case signedOut
        case handoff(Handoff)
        case verifying(Verifying)
        case active(Active)
        case refreshing(Refreshing)
        case revoking(ServerOperation)
        case disconnecting(ServerOperation)
        /// Held only inside a mutating method, so a stage's payload is changed in place.
        case modifying
    }

    enum Action {
        case present(SignInAttempt, generation: UInt64)
        case cancelPresenter
        case startTimer(TimerID, after: Duration)
        case cancelTimer(TimerID)
        case exchangeCode(code: String, attempt: SignInAttempt, generation: UInt64)
        case refresh(generation: UInt64, restoring: Bool)
        /// Sign-out or deletion overtook a refresh: stop its request so the journal is written at once.
        case cancelRefresh
        case revoke(generation: UInt64, attempt: Int)
        case disconnect(generation: UInt64, attempt: Int)
        /// An old session's refresh token moves to the background revocation queue.
        case deferRevocation
        /// Tokens from an exchange or refresh that finished after the session moved on.
        case discardLateTokens(Tokens)
        case resume([Waiter], WaiterResult<Tokens>)
        case transition(from: SessionStage, to: SessionStage, reason: TransitionReason)
        case emit(SessionEvent)
    }

    struct Configuration: Sendable {
        var handoffTimeout: Duration
        var refreshLeadTime: Duration
    }

    private(set) var state: State = .signedOut
    /// Bumped whenever the session's identity changes (sign-in, sign-out, deletion, end).
    private(set) var generation: UInt64 = 0
    private var nextTimer: UInt64 = 0
    let configuration: Configuration

    init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The public view of the current stage.
    var stage: SessionStage {
        switch state {
        case .signedOut: .signedOut
        case .handoff: .handoff
        case .verifying: .verifying
        case .active: .active
        case .refreshing: .refreshing
        case .revoking: .revoking
        case .disconnecting: .disconnecting
        case .modifying: preconditionFailure("stage read while the machine is modifying")
        }
    }

    /// What the owner may do with a token request without feeding an event, or `nil` when every
    /// request must go through ``tokenRequested(id:waiter:now:force:)``.
    enum Handout {
        /// Active: the owner may hand the access token out until `dueAt` (access-token expiry
        /// minus the lead time), the rule `tokenRequested` applies, as a date the owner compares
        /// with its own clock.
        case fresh(Tokens, dueAt: Date)
        /// Refreshing: a request could only join the refresh in flight, so the owner may queue
        /// callers itself and feed them as `tokenRequested` (not forced), in arrival order, before
        /// any other event.
        case joinRefresh
    }

    /// The handout rule of the current stage (the fast path of `validAccessToken()`).
    var handout: Handout? {
        switch state {
        case .active(let active):
            .fresh(
                active.tokens, dueAt: active.tokens.accessTokenExpiresAt.addingTimeInterval(-Self.seconds(configuration.refreshLeadTime)))
        case .refreshing: .joinRefresh
        default: nil
        }
    }

    /// The attempt number of the operation in flight (refresh, revoke, disconnect).
    var retryAttempt: Int? {
        switch state {
        case .refreshing(let refreshing): refreshing.attempt
        case .revoking(let operation), .disconnecting(let operation): operation.attempt
        default: nil
        }
    }

    // MARK: - Sign-in

    mutating func signIn(_ attempt: SignInAttempt, id: WaiterID, waiter: Waiter) -> [Action] {
        switch state {
        case .signedOut:
            generation += 1
            let timer = makeTimer()
            state = .handoff(Handoff(attempt: attempt, timer: timer, waiters: WaiterList(id, waiter)))
            return [
                .transition(from: .signedOut, to: .handoff, reason: .signInRequested),
                .present(attempt, generation: generation),
                .startTimer(timer, after: configuration.handoffTimeout),
            ]
        case .revoking(let operation):
            // A pending revocation must not hold the person hostage: the old refresh token moves to
            // the background queue, stays unusable, and the new sign-in starts.
            generation += 1
            let timer = makeTimer()
            state = .handoff(Handoff(attempt: attempt, timer: timer, waiters: WaiterList(id, waiter)))
            var actions: [Action] = []
            if let retry = operation.retryTimer { actions.append(.cancelTimer(retry)) }
            actions += [
                .deferRevocation,
                .resume(Self.ordered(operation.waiters), .done),
                .transition(from: .revoking, to: .signedOut, reason: .revocationDeferred),
                .transition(from: .signedOut, to: .handoff, reason: .signInRequested),
                .present(attempt, generation: generation),
                .startTimer(timer, after: configuration.handoffTimeout),
            ]
            return actions
        case .handoff, .verifying:
            return [.resume([waiter], .failed(.signInInProgress))]
        case .active, .refreshing:
            return [.resume([waiter], .failed(.alreadySignedIn))]
        case .disconnecting:
            return [.resume([waiter], .failed(.accountDeletionInProgress))]
        case .modifying:
            preconditionFailure("re-entered while modifying")
        }
    }

    /// A callback URL matching the redirect URI arrived. Returns whether it was consumed.
    mutating func callbackReceived(_ callback: CallbackParameters, expectedIssuer: String) -> (consumed: Bool, actions: [Action]) {
        guard case .handoff(let handoff) = state else {
            // No handoff waits for it: a stale or replayed callback is not consumed.
            return (false, [])
        }
        guard callback.state == handoff.attempt.state else {
            // Not this handoff's answer (a stale or forged link): not consumed, so whoever can open
            // the app's redirect URL cannot cancel a sign-in in progress.
            return (false, [])
        }
        let failure: (TransitionReason, SessionError)?
        if let issuer = callback.issuer, issuer != expectedIssuer {
            failure = (.callbackRejected("iss mismatch"), .callbackRejected("iss mismatch"))
        } else if let error = callback.error {
            failure = (.authorizationDenied(error: error), .authorizationDenied(error))
        } else if callback.code == nil || callback.code?.isEmpty == true {
            failure = (.callbackRejected("no code"), .callbackRejected("no code"))
        } else {
            failure = nil
        }
        if let (reason, error) = failure {
            return (true, endHandoff(handoff, from: .handoff, reason: reason, error: error))
        }
        var attempt = handoff.attempt
        attempt.redirectURI = callback.redirectURI
        state = .verifying(Verifying(attempt: attempt, waiters: handoff.waiters))
        return (
            true,
            [
                .cancelTimer(handoff.timer),
                .cancelPresenter,
                .transition(from: .handoff, to: .verifying, reason: .callbackReceived),
                .exchangeCode(code: callback.code ?? "", attempt: attempt, generation: generation),
            ]
        )
    }

    /// The presenter ended without delivering a callback.
    mutating func presenterFailed(_ error: HandoffError, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .handoff(let handoff) = state else {
            // The handoff already ended (callback, timeout, sign-out): the presenter's late word is moot.
            return []
        }
        switch error {
        case .cancelled:
            return endHandoff(handoff, from: .handoff, reason: .handoffCancelled, error: .cancelled)
        case .presentationFailed(let why):
            return endHandoff(handoff, from: .handoff, reason: .presentationFailed(why), error: .presentationFailed(why))
        }
    }

    mutating func exchangeSucceeded(_ tokens: Tokens, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .verifying(let verifying) = state else {
            return [.discardLateTokens(tokens)]
        }
        state = .active(Active(tokens: tokens))
        return [
            .transition(from: .verifying, to: .active, reason: .verified(subject: tokens.subject)),
            .resume(Self.ordered(verifying.waiters), .tokens(tokens)),
        ]
    }

    mutating func exchangeFailed(_ error: SessionError, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .verifying(let verifying) = state else {
            // The sign-in was already abandoned; nothing was stored for it.
            return []
        }
        self.generation += 1
        state = .signedOut
        return [
            .transition(from: .verifying, to: .signedOut, reason: Self.reason(for: error)),
            .resume(Self.ordered(verifying.waiters), .failed(error)),
        ]
    }

    // MARK: - Tokens and refresh

    /// A caller wants a valid access token (`force`: a refresh regardless of expiry).
    mutating func tokenRequested(id: WaiterID, waiter: Waiter, now: Date, force: Bool) -> [Action] {
        switch state {
        case .active(let active):
            let remaining = active.tokens.accessTokenExpiresAt.timeIntervalSince(now)
            if !force && Self.isFresh(active.tokens, now: now, lead: configuration.refreshLeadTime) {
                return [.resume([waiter], .tokens(active.tokens))]
            }
            state = .refreshing(Refreshing(previous: active.tokens, waiters: WaiterList(id, waiter), attempt: 1, retryTimer: nil))
            let reason: TransitionReason =
                force ? .refreshRequested : .tokenDue(inSeconds: max(0, Int(remaining.rounded(.down))), callers: 1)
            return [
                .transition(from: .active, to: .refreshing, reason: reason),
                .refresh(generation: generation, restoring: false),
            ]
        case .refreshing(var refreshing):
            state = .modifying
            refreshing.waiters.append(id, waiter)
            state = .refreshing(refreshing)
            return []
        case .signedOut, .handoff, .verifying:
            return [.resume([waiter], .failed(.notSignedIn))]
        case .revoking:
            return [.resume([waiter], .failed(.signOutInProgress))]
        case .disconnecting:
            return [.resume([waiter], .failed(.accountDeletionInProgress))]
        case .modifying:
            preconditionFailure("re-entered while modifying")
        }
    }

    /// Callers the owner queued while the handout rule was ``Handout/joinRefresh``, in arrival
    /// order: each is a `tokenRequested` (not forced) at `now`. While refreshing they join the
    /// refresh in one step; in any other stage each is answered as that stage answers a request.
    mutating func queuedTokenRequests(_ queued: WaiterList<Waiter>, now: Date) -> [Action] {
        if case .refreshing(var refreshing) = state {
            state = .modifying
            refreshing.waiters.append(contentsOf: queued)
            state = .refreshing(refreshing)
            return []
        }
        var actions: [Action] = []
        for (id, waiter) in queued.entries {
            actions += tokenRequested(id: id, waiter: waiter, now: now, force: false)
        }
        return actions
    }

    mutating func refreshSucceeded(_ tokens: Tokens, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .refreshing(let refreshing) = state else {
            return [.discardLateTokens(tokens)]
        }
        state = .active(Active(tokens: tokens))
        var actions: [Action] = []
        if let previous = refreshing.previous {
            // Account identity is the provider's word, told as events, never guessed.
            if previous.subject != tokens.subject {
                actions.append(.emit(.subjectChanged(from: previous.subject, to: tokens.subject, absorbed: tokens.linkedSubjects)))
            }
            if previous.isAnonymous && !tokens.isAnonymous {
                actions.append(.emit(.anonymousUserPromoted(subject: tokens.subject)))
            }
        }
        let reason: TransitionReason =
            refreshing.previous == nil ? .verified(subject: tokens.subject) : .refreshed(callers: refreshing.waiters.count)
        actions.append(.transition(from: .refreshing, to: .active, reason: reason))
        actions.append(.resume(Self.ordered(refreshing.waiters), .tokens(tokens)))
        return actions
    }

    mutating func refreshFailed(_ failure: RefreshFailure, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .refreshing(var refreshing) = state else {
            // Superseded by sign-out, deletion or a new sign-in; the store already reflects it.
            return []
        }
        switch failure {
        case .transient(let error, let retryIn?):
            let timer = makeTimer()
            refreshing.attempt += 1
            refreshing.retryTimer = timer
            state = .refreshing(refreshing)
            return [
                .transition(
                    from: .refreshing, to: .refreshing,
                    reason: .retrying(attempt: refreshing.attempt - 1, afterSeconds: Self.seconds(retryIn), because: Self.describe(error))),
                .startTimer(timer, after: retryIn),
            ]
        case .transient(let error, nil):
            // Not sticky: the tokens stay, the waiters get the error, the next call may try again.
            let waiters = Self.ordered(refreshing.waiters)
            if let previous = refreshing.previous {
                state = .active(Active(tokens: previous))
                return [
                    .transition(from: .refreshing, to: .active, reason: .refreshFailedTransiently(Self.describe(error))),
                    .resume(waiters, .failed(error)),
                ]
            }
            // A restore that could not reach the provider: nothing verified to show, nothing wiped.
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: .refreshing, to: .signedOut, reason: .refreshFailedTransiently(Self.describe(error))),
                .resume(waiters, .failed(error)),
            ]
        case .permanent(let error):
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: .refreshing, to: .signedOut, reason: Self.reason(for: error)),
                .resume(Self.ordered(refreshing.waiters), .failed(error)),
            ]
        }
    }

    // MARK: - Cancellation and timers

    /// One caller's task was cancelled: only that caller is removed and resumed.
    mutating func waiterCancelled(_ id: WaiterID) -> [Action] {
        switch state {
        case .refreshing(var refreshing):
            state = .modifying
            let waiter = refreshing.waiters.remove(id)
            state = .refreshing(refreshing)
            // The refresh itself goes on: its result is still useful and it may carry a rotated token.
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .handoff(var handoff):
            guard let waiter = handoff.waiters.remove(id) else { return [] }
            if handoff.waiters.isEmpty {
                // Nobody waits for this sign-in any more: end the handoff.
                return endHandoff(handoff, from: .handoff, reason: .handoffCancelled, error: .cancelled) + [.resume([waiter], .failed(.cancelled))]
            }
            state = .handoff(handoff)
            return [.resume([waiter], .failed(.cancelled))]
        case .verifying(var verifying):
            state = .modifying
            let waiter = verifying.waiters.remove(id)
            state = .verifying(verifying)
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .revoking(var operation):
            state = .modifying
            let waiter = operation.waiters.remove(id)
            state = .revoking(operation)
            // The journaled operation continues without this caller.
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .disconnecting(var operation):
            state = .modifying
            let waiter = operation.waiters.remove(id)
            state = .disconnecting(operation)
            return waiter.map { [.resume([$0], .failed(.cancelled))] } ?? []
        case .signedOut, .active:
            // The caller was already resumed before its cancellation arrived.
            return []
        case .modifying:
            preconditionFailure("re-entered while modifying")
        }
    }

    mutating func timerFired(_ id: TimerID) -> [Action] {
        switch state {
        case .handoff(let handoff) where handoff.timer == id:
            return endHandoff(handoff, from: .handoff, reason: .handoffTimedOut, error: .handoffTimedOut)
        case .refreshing(var refreshing) where refreshing.retryTimer == id:
            refreshing.retryTimer = nil
            state = .refreshing(refreshing)
            return [.refresh(generation: generation, restoring: refreshing.previous == nil)]
        case .revoking(var operation) where operation.retryTimer == id:
            operation.retryTimer = nil
            state = .revoking(operation)
            return [.revoke(generation: generation, attempt: operation.attempt)]
        case .disconnecting(var operation) where operation.retryTimer == id:
            operation.retryTimer = nil
            state = .disconnecting(operation)
            return [.disconnect(generation: generation, attempt: operation.attempt)]
        default:
            // A timer that was cancelled or belongs to a stage already left.
            return []
        }
    }

    // MARK: - Restore

    mutating func restoreLoaded(_ plan: RestorePlan, id: WaiterID, waiter: Waiter) -> [Action] {
        guard case .signedOut = state else {
            // Already running (a second restore, or sign-in first): nothing to restore.
            return [.resume([waiter], .done)]
        }
        switch plan {
        case .nothing:
            return [.transition(from: .signedOut, to: .signedOut, reason: .nothingStored), .resume([waiter], .done)]
        case .session:
            generation += 1
            state = .refreshing(Refreshing(previous: nil, waiters: WaiterList(id, waiter), attempt: 1, retryTimer: nil))
            return [
                .transition(from: .signedOut, to: .refreshing, reason: .restoring),
                .refresh(generation: generation, restoring: true),
            ]
        case .pending(.signOut):
            generation += 1
            state = .revoking(ServerOperation(tokens: nil, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter)))
            return [
                .transition(from: .signedOut, to: .revoking, reason: .resumingPendingOperation),
                .revoke(generation: generation, attempt: 1),
            ]
        case .pending(.deleteAccount):
            generation += 1
            state = .disconnecting(ServerOperation(tokens: nil, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter)))
            return [
                .transition(from: .signedOut, to: .disconnecting, reason: .resumingPendingOperation),
                .disconnect(generation: generation, attempt: 1),
            ]
        }
    }

    // MARK: - Server-first sign-out and deletion

    mutating func signOut(id: WaiterID, waiter: Waiter) -> [Action] {
        switch state {
        case .active(let active):
            return beginRevoking(from: .active, tokens: active.tokens, id: id, waiter: waiter, others: [])
        case .refreshing(let refreshing):
            return beginRevoking(
                from: .refreshing, tokens: refreshing.previous, id: id, waiter: waiter,
                others: [.cancelRefresh, .resume(Self.ordered(refreshing.waiters), .failed(.signOutInProgress))]
                    + (refreshing.retryTimer.map { [.cancelTimer($0)] } ?? []))
        case .revoking(var operation):
            state = .modifying
            operation.waiters.append(id, waiter)
            state = .revoking(operation)
            return []
        case .signedOut:
            // Signing out when signed out is already done.
            return [.resume([waiter], .done)]
        case .handoff(let handoff):
            return endHandoff(handoff, from: .handoff, reason: .handoffCancelled, error: .cancelled) + [.resume([waiter], .done)]
        case .verifying(let verifying):
            // The exchange in flight becomes stale; its tokens are discarded and revoked when they arrive.
            generation += 1
            state = .signedOut
            return [
                .transition(from: .verifying, to: .signedOut, reason: .handoffCancelled),
                .resume(Self.ordered(verifying.waiters), .failed(.cancelled)),
                .resume([waiter], .done),
            ]
        case .disconnecting:
            return [.resume([waiter], .failed(.accountDeletionInProgress))]
        case .modifying:
            preconditionFailure("re-entered while modifying")
        }
    }

    mutating func deleteAccount(id: WaiterID, waiter: Waiter) -> [Action] {
        switch state {
        case .active(let active):
            return beginDisconnecting(from: .active, tokens: active.tokens, id: id, waiter: waiter, others: [])
        case .refreshing(let refreshing):
            return beginDisconnecting(
                from: .refreshing, tokens: refreshing.previous, id: id, waiter: waiter,
                others: [.cancelRefresh, .resume(Self.ordered(refreshing.waiters), .failed(.accountDeletionInProgress))]
                    + (refreshing.retryTimer.map { [.cancelTimer($0)] } ?? []))
        case .disconnecting(var operation):
            state = .modifying
            operation.waiters.append(id, waiter)
            state = .disconnecting(operation)
            return []
        case .signedOut, .handoff, .verifying:
            return [.resume([waiter], .failed(.notSignedIn))]
        case .revoking:
            return [.resume([waiter], .failed(.signOutInProgress))]
        case .modifying:
            preconditionFailure("re-entered while modifying")
        }
    }

    /// The provider confirmed the revocation or the disconnect, and the store is already wiped.
    mutating func serverOperationConfirmed(generation: UInt64, subject: String?) -> [Action] {
        guard generation == self.generation else { return [] }
        switch state {
        case .revoking(let operation):
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: .revoking, to: .signedOut, reason: .revocationConfirmed),
                .resume(Self.ordered(operation.waiters), .done),
            ]
        case .disconnecting(let operation):
            self.generation += 1
            state = .signedOut
            var actions: [Action] = [.transition(from: .disconnecting, to: .signedOut, reason: .accountDeleted)]
            if let subject = subject ?? operation.tokens?.subject {
                actions.append(.emit(.deleteUserData(subject: subject)))
            }
            actions.append(.resume(Self.ordered(operation.waiters), .done))
            return actions
        default:
            // The operation was superseded before its confirmation arrived.
            return []
        }
    }

    mutating func serverOperationFailed(_ failure: ServerOperationFailure, generation: UInt64) -> [Action] {
        guard generation == self.generation else { return [] }
        switch (state, failure) {
        case (.revoking(var operation), .transient(let why, let delay)),
            (.disconnecting(var operation), .transient(let why, let delay)):
            let stage = self.stage
            let timer = makeTimer()
            operation.attempt += 1
            operation.retryTimer = timer
            state = stage == .revoking ? .revoking(operation) : .disconnecting(operation)
            return [
                .transition(
                    from: stage, to: stage,
                    reason: .retrying(attempt: operation.attempt - 1, afterSeconds: Self.seconds(delay), because: why)),
                .startTimer(timer, after: delay),
            ]
        case (.revoking(let operation), .cannotTell(let why)):
            return endRevokingLocally(operation, why: why)
        case (.revoking(let operation), .refused(let status)):
            return endRevokingLocally(operation, why: "revocation refused (\(status))")
        case (.disconnecting(let operation), .refused(let status)):
            return endDisconnecting(operation, reason: .accountDeletionRefused(status: status), error: .accountDeletionRefused(status: status))
        case (.disconnecting(let operation), .cannotTell(let why)):
            return endDisconnecting(operation, reason: .accountDeletionUnavailable(why), error: .unsupported(why))
        case (.revoking(let operation), .storage(let error)), (.disconnecting(let operation), .storage(let error)):
            // The intent could not be journaled or completed: surface it; nothing was wiped.
            let stage = self.stage
            let waiters = Self.ordered(operation.waiters)
            if let tokens = operation.tokens {
                state = .active(Active(tokens: tokens))
                return [
                    .transition(from: stage, to: .active, reason: .storageFailed(Self.describe(.storage(error)))),
                    .resume(waiters, .failed(.storage(error))),
                ]
            }
            self.generation += 1
            state = .signedOut
            return [
                .transition(from: stage, to: .signedOut, reason: .storageFailed(Self.describe(.storage(error)))),
                .resume(waiters, .failed(.storage(error))),
            ]
        default:
            return []
        }
    }

    // MARK: - Helpers

    private mutating func beginRevoking(
        from stage: SessionStage, tokens: Tokens?, id: WaiterID, waiter: Waiter, others: [Action]
    ) -> [Action] {
        generation += 1
        state = .revoking(ServerOperation(tokens: tokens, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter)))
        return others + [
            .transition(from: stage, to: .revoking, reason: .signOutRequested),
            .revoke(generation: generation, attempt: 1),
        ]
    }

    private mutating func beginDisconnecting(
        from stage: SessionStage, tokens: Tokens?, id: WaiterID, waiter: Waiter, others: [Action]
    ) -> [Action] {
        generation += 1
        state = .disconnecting(ServerOperation(tokens: tokens, attempt: 1, retryTimer: nil, waiters: WaiterList(id, waiter)))
        return others + [
            .transition(from: stage, to: .disconnecting, reason: .accountDeletionRequested),
            .disconnect(generation: generation, attempt: 1),
        ]
    }

    /// The account stays: back to the verified tokens, or, when the deletion was resumed from the
    /// journal at launch (no verified tokens in memory), on to a restoring refresh.
    private mutating func endDisconnecting(_ operation: ServerOperation, reason: TransitionReason, error: SessionError) -> [Action] {
        let waiters = Self.ordered(operation.waiters)
        if let tokens = operation.tokens {
            state = .active(Active(tokens: tokens))
            return [.transition(from: .disconnecting, to: .active, reason: reason), .resume(waiters, .failed(error))]
        }
        state = .refreshing(Refreshing(previous: nil, waiters: WaiterList(), attempt: 1, retryTimer: nil))
        return [
            .transition(from: .disconnecting, to: .refreshing, reason: reason),
            .resume(waiters, .failed(error)),
            .refresh(generation: generation, restoring: true),
        ]
    }

    /// The store is wiped by the shell before this event: signing out cannot be refused.
    private mutating func endRevokingLocally(_ operation: ServerOperation, why: String) -> [Action] {
        generation += 1
        state = .signedOut
        return [
            .transition(from: .revoking, to: .signedOut, reason: .signedOutLocallyOnly(why)),
            .resume(Self.ordered(operation.waiters), .done),
        ]
    }

    private mutating func endHandoff(_ handoff: Handoff, from stage: SessionStage, reason: TransitionReason, error: SessionError) -> [Action] {
        generation += 1
        state = .signedOut
        var actions: [Action] = [.cancelTimer(handoff.timer), .cancelPresenter, .transition(from: stage, to: .signedOut, reason: reason)]
        if !handoff.waiters.isEmpty { actions.append(.resume(Self.ordered(handoff.waiters), .failed(error))) }
        return actions
    }

    private mutating func makeTimer() -> TimerID {
        nextTimer += 1
        return TimerID(raw: nextTimer)
    }

    private static func isFresh(_ tokens: Tokens, now: Date, lead: Duration) -> Bool {
        tokens.accessTokenExpiresAt.timeIntervalSince(now) > seconds(lead)
    }

    /// Waiters in the order they arrived, so results are handed out deterministically.
    private static func ordered(_ waiters: WaiterList<Waiter>) -> [Waiter] {
        waiters.ordered
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    static func reason(for error: SessionError) -> TransitionReason {
        switch error {
        case .verificationFailed(let error): .verificationFailed(code: error.code)
        case .refreshTokenRejected: .refreshRejected("invalid_grant")
        case .storage: .storageFailed(describe(error))
        case .provider: .exchangeFailed(describe(error))
        case .cancelled: .handoffCancelled
        case .handoffTimedOut: .handoffTimedOut
        case .authorizationDenied(let code): .authorizationDenied(error: code)
        case .callbackRejected(let why): .callbackRejected(why)
        case .presentationFailed(let why): .presentationFailed(why)
        default: .exchangeFailed(describe(error))
        }
    }

    static func describe(_ error: SessionError) -> String {
        switch error {
        case .provider(let provider): provider.summary
        case .storage(let storage): "\(storage)"
        case .verificationFailed(let error): error.code
        default: "\(error)"
        }
    }
}

extension WaiterResult: Sendable where Tokens: Sendable {}
