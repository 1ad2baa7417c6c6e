import Foundation

extension SessionStateMachine {
    /// Everything the machine can ask its owner to do, in one vocabulary for every input.
    ///
    /// The owner performs a returned list in order, after the step that produced it, and feeds the
    /// results of long work back as inputs. A test compares these values directly.
    enum Action {
        // Telling the app and the callers.
        /// The stage changed (or, `from == to`, the stage's situation did).
        case transition(from: SessionStage, to: SessionStage, reason: TransitionReason)
        /// Resume these callers with one result.
        case resume([Waiter], WaiterResult<Tokens>)
        /// Tell the app something that is not a stage change.
        case emit(SessionEvent)

        // Timers (values: a stale id is ignored when it fires).
        /// Start timer `TimerID`, to fire after the duration.
        case startTimer(TimerID, after: Duration)
        /// The timer is no longer needed.
        case cancelTimer(TimerID)

        // The handoff's own work.
        /// Show the authorization page for the attempt; `cancel` ends the presentation.
        case present(SignInAttempt, generation: UInt64, cancel: CancelHandle)
        /// Show the person a device sign-in's user code and where to enter it.
        case presentDeviceCode(DeviceCodePrompt, generation: UInt64, cancel: CancelHandle)
        /// Signed out and wiped: open the provider's end-session page.
        case presentEndSession(EndSessionOrder, generation: UInt64, cancel: CancelHandle)
        /// End the presenter's work and a device sign-in's request in flight: all the work
        /// started with this handle.
        case cancelPresenter(CancelHandle)
        /// Exchange the callback's code for tokens, then verify and store them.
        case exchangeCode(code: String, attempt: SignInAttempt, generation: UInt64)
        /// Ask the provider for a device code.
        case requestDeviceCode(generation: UInt64, cancel: CancelHandle)
        /// Ask the token endpoint whether the person approved a device sign-in yet.
        case pollDeviceToken(DeviceAuthorization, generation: UInt64, cancel: CancelHandle)
        /// A device sign-in was approved: verify its tokens (no nonce in this grant), store them.
        case verifyDeviceTokens(TokenResponse, generation: UInt64)

        // Tokens.
        /// Run one refresh attempt; the order's handle ends it.
        case refresh(RefreshOrder)
        /// Sign-out or deletion overtook a refresh: stop its request so the journal is written at once.
        case cancelRefresh(CancelHandle)
        /// Tokens that arrived after the session moved on: clear them from the store if they are
        /// there, and queue their refresh token for revocation.
        case discardLateTokens(Tokens)

        // Guest sessions.
        /// Bootstrap a guest (the stored device secret, if any), store its key, report back.
        case bootstrapGuest(generation: UInt64)
        /// Renew a guest session's key: one bootstrap with the stored secret (one attempt),
        /// reported back like a refresh.
        case renewGuestKey(RefreshOrder)
        /// A sign-in from a guest session was verified: forget the guest credential.
        case resetGuestCredential
        /// End a guest session locally: wipe its key, its device credential and the
        /// high-assurance item; nothing goes to the provider.
        case endGuestSession(generation: UInt64)

        // Ending.
        /// Journal the sign-out, revoke at the provider, then wipe (one attempt).
        case revoke(generation: UInt64, attempt: Int)
        /// Journal the deletion, disconnect at the provider, then wipe (one attempt).
        case disconnect(generation: UInt64, attempt: Int)
        /// An old session's refresh tokens move to the revocation queue (a new sign-in started
        /// while a sign-out still waited for the provider).
        case deferRevocation
        /// Revoke the first token of the store's revocation queue (one attempt).
        case revokeQueued(attempt: Int)
    }
}

extension SessionStateMachine.Action: Sendable where Tokens: Sendable, Waiter: Sendable {}

// Tests compare actions as values.
extension SessionStateMachine.Action: Equatable where Tokens: Equatable, Waiter: Equatable {}
