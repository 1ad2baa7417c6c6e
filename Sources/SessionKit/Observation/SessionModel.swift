import Observation

/// An observable view of a ``Session`` for SwiftUI (or any Observation client), on the main actor.
///
/// It follows the session's ``Session/events()`` and keeps five properties current: whether
/// someone ``isSignedIn`` (a refresh in flight still counts), the ``stage``, the verified
/// ``identity``, the ``pendingOperation`` the session is confirming with the provider (sign-out,
/// account deletion), and the ``lastError`` worth showing. Each property changes only when its value
/// does, so a view that reads ``isSignedIn`` is not redrawn by a refresh.
///
/// ```swift
/// @State private var model = SessionModel(session: session)
///
/// var body: some View {
///     if model.isSignedIn { AccountView(subject: model.identity?.subject) }
///     else { Button("Sign in") { Task { await model.signIn() } } }
/// }
/// ```
///
/// The model holds the session; the session does not hold the model. Releasing the model stops
/// following the events.
@MainActor
@Observable
public final class SessionModel {
    /// Whether a verified session is in place: `active`, or `refreshing` its tokens.
    public private(set) var isSignedIn = false
    /// The session's stage, as of the last event applied.
    public private(set) var stage = SessionStage.signedOut
    /// Who is signed in, while ``isSignedIn`` (and while their sign-out or deletion is confirmed).
    public private(set) var identity: SessionIdentity?
    /// The server-first operation waiting for the provider's confirmation, if any.
    public private(set) var pendingOperation: PendingOperation?
    /// The most recent failure worth showing, until ``clearError()`` or the next call made
    /// through the model: a transition whose reason ``SessionModelError/isWorthShowing(_:)``, or
    /// a call through the model that the session refused without changing stage.
    public private(set) var lastError: SessionModelError?

    @ObservationIgnored private let operations: Operations
    @ObservationIgnored private nonisolated let follower = Locked<Task<Void, Never>?>(nil)
    @ObservationIgnored private var isFollowing = false
    @ObservationIgnored private var followingWaiters: [CheckedContinuation<Void, Never>] = []

    /// What the model asks of the session.
    private struct Operations: Sendable {
        var events: @Sendable () async -> AsyncStream<SessionEvent>
        var identity: @Sendable () async -> SessionIdentity?
        var signIn: @Sendable () async throws(SessionError) -> Void
        var signInWithOptions: @Sendable (AuthorizationRequestOptions) async throws(SessionError) -> Void
        var signInWithDeviceCode: @Sendable () async throws(SessionError) -> Void
        var restore: @Sendable () async throws(SessionError) -> Void
        var signOut: @Sendable () async throws(SessionError) -> Void
        var deleteAccount: @Sendable () async throws(SessionError) -> Void
    }

    /// Creates a model that follows `session` from its current stage on.
    ///
    /// The subscription completes shortly after, on the main actor; until the first event arrives
    /// the model shows a signed-out session.
    public init(session: Session) {
        operations = Operations(
            events: { session.events() }, identity: { session.identity },
            signIn: { () async throws(SessionError) in _ = try await session.signIn() },
            signInWithOptions: { options async throws(SessionError) in _ = try await session.signIn(options: options) },
            signInWithDeviceCode: { () async throws(SessionError) in _ = try await session.signInWithDeviceCode() },
            restore: { () async throws(SessionError) in _ = try await session.restore() },
            signOut: { () async throws(SessionError) in try await session.signOut() },
            deleteAccount: { () async throws(SessionError) in try await session.deleteAccount() })
        let events = operations.events
        let task = Task { [weak self] in
            let stream = await events()
            self?.startedFollowing()
            for await event in stream {
                guard let self else { return }
                await self.apply(event)
            }
        }
        follower.withLock { $0 = task }
    }

    deinit {
        follower.withLock { $0 }?.cancel()
    }

    // MARK: Calls

    /// Signs in (see ``Session/signIn()``); a failure lands in ``lastError`` (a cancellation does not).
    public func signIn() async {
        await run(operations.signIn)
    }

    /// Signs in with request options over the configuration's defaults (see
    /// ``Session/signIn(options:)``), for a step-up with `max_age` or a `login_hint`.
    public func signIn(options: AuthorizationRequestOptions) async {
        await run { () async throws(SessionError) in try await operations.signInWithOptions(options) }
    }

    /// Signs in with a device code, for devices no browser can come back to (see
    /// ``Session/signInWithDeviceCode()``); the presenter shows the code.
    public func signInWithDeviceCode() async {
        await run(operations.signInWithDeviceCode)
    }

    /// Resumes a stored session or a journaled operation at launch (see ``Session/restore()``).
    public func restore() async {
        await run(operations.restore)
    }

    /// Signs out, server first (see ``Session/signOut()``).
    public func signOut() async {
        await run(operations.signOut)
    }

    /// Deletes the account's connection, server first (see ``Session/deleteAccount()``).
    public func deleteAccount() async {
        await run(operations.deleteAccount)
    }

    /// Forgets ``lastError``, once the person has seen it.
    public func clearError() {
        if lastError != nil { lastError = nil }
    }

    private func run(_ call: @Sendable () async throws(SessionError) -> Void) async {
        clearError()
        do {
            try await call()
        } catch {
            // A failure the session also reports as a transition arrives through the events, in
            // order; recording it here as well could bring it back after clearError().
            if Self.hasNoEvent(error) { lastError = .call(error) }
        }
    }

    /// Whether the session refuses this without changing stage, so no event will report it.
    private static func hasNoEvent(_ error: SessionError) -> Bool {
        switch error {
        case .notSignedIn, .signInInProgress, .alreadySignedIn, .signOutInProgress, .accountDeletionInProgress, .unsupported,
            .randomSourceFailed, .invalidRequestOptions, .userInfoRejected, .shutDown:
            true
        case .cancelled, .handoffTimedOut, .authorizationDenied, .presentationFailed, .callbackRejected, .verificationFailed,
            .provider, .refreshTokenRejected, .accountDeletionRefused, .storage, .storedSessionForeign, .anotherAccountInStore,
            .sessionExpired, .deviceCodeExpired, .sessionFailed:
            false
        }
    }

    // MARK: Events

    /// Returns once the model is subscribed to the session's events: from then on it sees every
    /// change, where before it would see only the stage current at subscription.
    func waitUntilFollowing() async {
        guard !isFollowing else { return }
        await withCheckedContinuation { followingWaiters.append($0) }
    }

    private func startedFollowing() {
        isFollowing = true
        for waiter in followingWaiters { waiter.resume() }
        followingWaiters.removeAll()
    }

    private func apply(_ event: SessionEvent) async {
        switch event {
        case .transition(let transition):
            let stage = transition.to
            if self.stage != stage { self.stage = stage }
            let signedIn = stage == .active || stage == .refreshing
            if isSignedIn != signedIn { isSignedIn = signedIn }
            let pending: PendingOperation? =
                switch stage {
                case .revoking: .signOut
                case .disconnecting: .deleteAccount
                default: nil
                }
            if pendingOperation != pending { pendingOperation = pending }
            if SessionModelError.isWorthShowing(transition.reason) { lastError = .session(transition.reason) }
            switch stage {
            case .active, .refreshing, .revoking, .disconnecting:
                await refreshIdentity()
            case .signedOut, .handoff, .verifying:
                if identity != nil { identity = nil }
            }
        case .subjectChanged, .anonymousUserPromoted:
            await refreshIdentity()
        case .deleteUserData, .deferredRevocationCompleted, .callbackRefused, .credentialStoreFallback,
            .sessionFailed:
            // A failed session also reports its transition, whose reason is worth showing.
            break
        case .providerLogout(let outcome):
            // Signed out either way; a browser session the person asked to end and that is still
            // there is worth a word, a cancellation or a new sign-in is their own choice.
            switch outcome {
            case .timedOut, .presentationFailed, .unavailable:
                lastError = .session(.providerSessionNotEnded(outcome.description))
            case .completed, .cancelled, .superseded:
                break
            }
        }
    }

    private func refreshIdentity() async {
        // The session hands out its identity only while it holds verified tokens; during a
        // sign-out or deletion the model keeps showing whom it concerns.
        guard let current = await operations.identity() else { return }
        if identity != current { identity = current }
    }
}
