import Foundation

/// The pure heart of a session: `(stage, input) -> (stage, [action])`.
///
/// No I/O, no `await`, no clock reads: the owner (`Session`, under its lock) feeds inputs, performs the
/// returned actions, and feeds their results back as inputs. Every stage carries its own data, so
/// impossible combinations cannot be written down, and every suspended caller of the session is
/// held here, in the stage it waits in.
///
/// Each input is one `mutating func` returning a list of ``Action``s, the one vocabulary every
/// input speaks, performed in order by the owner's one runner. They live by concern:
/// `+SignIn` (handoff and code exchange), `+Tokens` (handing out tokens and refreshing),
/// `+Ending` (server-first sign-out and deletion), `+Restore` (cold launch), `+Cancellation`
/// (callers' cancellations and timers).
///
/// Invalid inputs follow one taxonomy: misuse by the app resumes the caller with a thrown
/// ``SessionError`` (the stage is unchanged); a harmless race is a no-op with a comment; a result
/// from an older generation is dropped (DESIGN invariant 5); our own bug is an assertion in a debug build
/// and the terminal `stopped` state in a release build (``inconsistency(_:resuming:)``).
struct SessionStateMachine<Tokens: MachineTokens, Waiter> {
    struct Handoff {
        /// What the session waits for: a callback to an authorization request, or a device sign-in.
        var payload: HandoffPayload
        /// The handoff timeout, or for a device sign-in that is polling, the poll timer.
        var timer: TimerID
        var waiters: WaiterList<Waiter>
        /// The guest session a sign-in started from: the stage returns to it if the sign-in fails.
        var guest: Tokens? = nil
        /// Ends the handoff's own work: the presentation, and a device sign-in's request in flight.
        var work = CancelHandle()
    }

    struct Verifying {
        /// The authorization request the code answered; `nil` for a device sign-in.
        var attempt: SignInAttempt?
        var waiters: WaiterList<Waiter>
        /// The guest session a sign-in started from: the stage returns to it if the sign-in fails.
        var guest: Tokens? = nil
        /// Whether this is a guest session's first bootstrap rather than a sign-in.
        var bootstrapsGuest = false
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
        /// Ends the attempt in flight (while ``retryTimer`` runs, the attempt has ended already).
        var request = CancelHandle()
        /// The callers of `refresh()` among `waiters`: they asked for a newer token, so the
        /// previous one is never handed to them; only the refresh's result or its failure is.
        var forced: Set<WaiterID> = []

        /// The order for the attempt this stage waits on, ended by ``request``.
        func order(generation: UInt64) -> RefreshOrder {
            RefreshOrder(generation: generation, attempt: attempt, previous: previous, cancel: request)
        }

        /// Removes and returns the callers content with the current token (not ``forced``).
        mutating func takeUnforced() -> [Waiter] {
            if forced.isEmpty {
                defer { waiters = WaiterList() }
                return waiters.ordered
            }
            var kept = WaiterList<Waiter>()
            var taken: [Waiter] = []
            for (id, waiter) in waiters.entries {
                if forced.contains(id) { kept.append(id, waiter) } else { taken.append(waiter) }
            }
            waiters = kept
            return taken
        }
    }

    struct ServerOperation {
        /// The tokens to return to if the provider refuses (disconnect only).
        var tokens: Tokens?
        var attempt: Int
        var retryTimer: TimerID?
        var waiters: WaiterList<Waiter>
        /// Sign-out only: revoked and wiped, the provider's browser session is being ended.
        var logout: ProviderLogout? = nil
    }

    /// The rare stages' payloads are boxed (`indirect`), so copying or destroying a state (as every
    /// caller joining a refresh does under the lock) handles one reference for them rather than
    /// every field of a device sign-in's or a provider logout's data. Measured with
    /// `SessionBenchmarks`: per waiter at K = 100 000, 1.8-1.9x the floor unboxed, 1.1-1.3x boxed.
    enum State {
        case signedOut
        indirect case handoff(Handoff)
        indirect case verifying(Verifying)
        case active(Active)
        case refreshing(Refreshing)
        indirect case revoking(ServerOperation)
        indirect case disconnecting(ServerOperation)
        /// Held only inside a mutating method, so a stage's payload is changed in place.
        case modifying
        /// Terminal: shut down (``SessionError/shutDown``), or stopped after finding itself
        /// inconsistent, a bug of its own (``SessionError/sessionFailed``). Every input is answered
        /// with that error; the stage reads as signed out.
        indirect case stopped(SessionError)
    }

    /// A refresh the owner must run: for which generation, which attempt, from which tokens.
    struct RefreshOrder {
        var generation: UInt64
        var attempt: Int
        /// The verified tokens being refreshed; `nil` when restoring at cold launch.
        var previous: Tokens?
        /// Ends the attempt: the refreshing stage keeps it.
        var cancel = CancelHandle()
    }

    struct Configuration: Sendable {
        var handoffTimeout: Duration
        /// When tokens are due and when they expire.
        var timing: RefreshTiming
        /// How long a sign-out that revoked and wiped waits for the provider's end-session page.
        var providerLogoutTimeout: Duration = .seconds(60)
    }

    // Written only by the inputs (in this type's extensions, one file per concern); read by the owner.
    var state: State = .signedOut
    /// Bumped whenever the session's identity changes (sign-in, sign-out, deletion, end).
    var generation: UInt64 = 0
    private var nextTimer: UInt64 = 0
    /// The store's queue of refresh tokens still to be revoked, drained beside any stage.
    var revocationQueue = RevocationQueue()
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
        // `modifying` is never seen outside a mutating method; `stopped` holds no credentials.
        case .modifying, .stopped: .signedOut
        }
    }

    /// The verified tokens the session holds: the active ones, or those a refresh started from.
    var currentTokens: Tokens? {
        switch state {
        case .active(let active): active.tokens
        case .refreshing(let refreshing): refreshing.previous
        case .signedOut, .handoff, .verifying, .revoking, .disconnecting, .modifying, .stopped: nil
        }
    }

    /// How many callers wait for the refresh in flight.
    var waitingCallerCount: Int {
        switch state {
        case .refreshing(let refreshing): refreshing.waiters.count
        case .signedOut, .handoff, .verifying, .active, .revoking, .disconnecting, .modifying, .stopped: 0
        }
    }

    // MARK: - Helpers shared by the inputs

    mutating func makeTimer() -> TimerID {
        nextTimer += 1
        return TimerID(raw: nextTimer)
    }

    /// Ends the handoff (timeout, cancellation, refusal): back to signed out, or to the guest
    /// session it started from, its callers failed.
    mutating func endHandoff(
        _ handoff: Handoff, reason: TransitionReason, error: SessionError
    ) -> [Action] {
        generation += 1
        // A sign-in from a guest session that did not complete leaves the guest session as it was,
        // and its callers' error says so: the guest goes on, no sign-in is required.
        state = handoff.guest.map { .active(Active(tokens: $0)) } ?? .signedOut
        var actions: [Action] = [
            .cancelTimer(handoff.timer), .cancelPresenter(handoff.work), .transition(from: .handoff, to: stage, reason: reason),
        ]
        if !handoff.waiters.isEmpty {
            actions.append(.resume(handoff.waiters.ordered, .failed(handoff.guest == nil ? error : error.keepingSignedInSession())))
        }
        return actions
    }

    /// Whether `tokens` are due for a refresh at `now` (for a session without a refresh token:
    /// expired).
    func isDue(_ tokens: Tokens, now: Date) -> Bool {
        configuration.timing.isDue(expiresAt: tokens.accessTokenExpiresAt, canRefresh: tokens.canRefresh, now: now)
    }

    static func seconds(_ duration: Duration) -> Double {
        RefreshTiming.seconds(duration)
    }

    /// Our own bug: an input found the machine in a state it cannot be in. Debug builds stop at
    /// the assertion; a release build moves to the terminal ``State/stopped(_:)`` state, answers every
    /// caller it holds (and `waiters`) with ``SessionError/sessionFailed``, and says so, rather
    /// than crash the app.
    mutating func inconsistency(_ what: String, resuming waiters: [Waiter] = []) -> [Action] {
        assertionFailure("SessionStateMachine: \(what)")
        return stopAfterInconsistency(resuming: waiters)
    }

    /// What ``inconsistency(_:resuming:)`` does after its assertion (tests reach it directly).
    mutating func stopAfterInconsistency(resuming waiters: [Waiter] = []) -> [Action] {
        let from = stage
        let held = heldWaiters
        generation += 1
        state = .stopped(.sessionFailed)
        revocationQueue = RevocationQueue()
        var actions: [Action] = [.transition(from: from, to: .signedOut, reason: .internalFailure), .emit(.sessionFailed)]
        if !(held + waiters).isEmpty { actions.append(.resume(held + waiters, .failed(.sessionFailed))) }
        return actions
    }

    /// An input that found the machine `modifying` (our bug) or `stopped`: the caller is answered
    /// with the reason it stopped.
    mutating func outOfService(waiter: Waiter? = nil) -> [Action] {
        let waiters = waiter.map { [$0] } ?? []
        guard case .stopped(let error) = state else { return inconsistency("re-entered while modifying", resuming: waiters) }
        return waiters.isEmpty ? [] : [.resume(waiters, .failed(error))]
    }

    /// The owner shuts the session down: every caller it holds is answered with
    /// ``SessionError/shutDown``, every timer is dropped, and every later input is refused.
    mutating func shutDown() -> [Action] {
        if case .stopped = state { return [] }
        let from = stage
        let held = heldWaiters
        // The owner's shutdown ends every child too; these end the stage's own work first.
        var actions: [Action] =
            switch state {
            case .handoff(let handoff): [.cancelPresenter(handoff.work)]
            case .refreshing(let refreshing): [.cancelRefresh(refreshing.request)]
            case .revoking(let operation): operation.logout.map { [.cancelPresenter($0.presentation)] } ?? []
            case .signedOut, .verifying, .active, .disconnecting, .modifying, .stopped: []
            }
        generation += 1
        state = .stopped(.shutDown)
        revocationQueue = RevocationQueue()
        actions.append(.transition(from: from, to: .signedOut, reason: .shutDown))
        if !held.isEmpty { actions.append(.resume(held, .failed(.shutDown))) }
        return actions
    }

    /// How many callers the current stage holds (a sign-in, a refresh, a sign-out waiting).
    var heldCallerCount: Int { heldWaiters.count }

    /// Every caller the current stage holds.
    private var heldWaiters: [Waiter] {
        switch state {
        case .handoff(let handoff): handoff.waiters.ordered
        case .verifying(let verifying): verifying.waiters.ordered
        case .refreshing(let refreshing): refreshing.waiters.ordered
        case .revoking(let operation), .disconnecting(let operation): operation.waiters.ordered
        case .signedOut, .active, .modifying, .stopped: []
        }
    }

    /// The reason a stage change names for a failed sign-in or refresh.
    static func reason(for error: SessionError) -> TransitionReason {
        switch error.kind {
        case .verificationFailed(let failure): .verificationFailed(failure)
        case .refreshTokenRejected: .refreshRejected(nil)
        case .storage(let failure): .storageFailed(failure)
        case .cancelled: .handoffCancelled
        case .handoffTimedOut: .handoffTimedOut
        case .authorizationDenied(let code): .authorizationDenied(error: code)
        case .callbackRejected(let refusal): .callbackRejected(refusal)
        case .presentationFailed(let failure): .presentationFailed(failure)
        case .sessionExpired: .sessionExpired
        case .deviceCodeExpired: .deviceCodeExpired
        case .anotherAccountInStore: .anotherAccountInStore
        case .storedSessionForeign(let mismatch): .storedSessionNotRestored(mismatch)
        case .dpopKeyUnavailable(let loss): .dpopKeyUnavailable(loss)
        case .sessionFailed: .internalFailure
        case .guestBootstrapFailed: .guestBootstrapFailed(error)
        case .provider, .invalidRequestOptions, .userInfoRejected, .notSignedIn, .signInInProgress, .alreadySignedIn,
            .signOutInProgress, .accountDeletionInProgress, .accountDeletionRefused, .unsupported, .randomSourceFailed, .shutDown:
            .exchangeFailed(error)
        }
    }
}

extension SessionStateMachine.Handoff {
    /// A handoff to the authorization page for `attempt`.
    init(attempt: SignInAttempt, timer: TimerID, waiters: WaiterList<Waiter>, guest: Tokens? = nil) {
        self.init(payload: .authorization(attempt), timer: timer, waiters: waiters, guest: guest)
    }

    /// The authorization request the handoff waits on a callback for; `nil` for a device sign-in.
    var attempt: SignInAttempt? {
        guard case .authorization(let attempt) = payload else { return nil }
        return attempt
    }
}

extension SessionStateMachine.RefreshOrder: Sendable where Tokens: Sendable {}
extension SessionStateMachine.RefreshOrder: Equatable where Tokens: Equatable {}

extension SessionStateMachine: CustomReflectable {
    /// The stage and the generation only: the stages' payloads hold sign-in parameters and tokens.
    var customMirror: Mirror {
        Mirror(self, children: ["stage": stage, "generation": generation], displayStyle: .struct)
    }
}
