public import Observation
import SessionKitCore

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
    /// The session's events, posted where they happen and applied here, on the main actor.
    @ObservationIgnored private let mailbox = SessionModelMailbox()
    @ObservationIgnored private nonisolated let follower = Locked<Task<Void, Never>?>(nil)

    /// What the model asks of the session.
    private struct Operations: Sendable {
        var stage: @Sendable () -> SessionStage
        var identity: @Sendable () -> SessionIdentity?
        var stopObserving: @Sendable () -> Void
        var changed: @Sendable () -> Void
        var signIn: @Sendable () async throws(SessionError) -> Void
        var signInWithOptions: @Sendable (AuthorizationRequestOptions) async throws(SessionError) -> Void
        var signInWithDeviceCode: @Sendable () async throws(SessionError) -> Void
        var restore: @Sendable () async throws(SessionError) -> Void
        var refresh: @Sendable () async throws(SessionError) -> Void
        var signOut: @Sendable () async throws(SessionError) -> Void
        var deleteAccount: @Sendable () async throws(SessionError) -> Void
    }

    /// Creates a model that shows `session` as it is now and follows it from here on.
    ///
    /// The model is in step with its own calls: when ``signIn()``, ``signOut()``,
    /// ``deleteAccount()``, ``restore()`` (or any other call through the model) returns, it
    /// already shows the outcome, ``lastError`` included. A change made through the session
    /// directly shows once the session reports it, on the main actor's next turn.
    public init(session: Session) {
        let mailbox = self.mailbox
        // Every event from here on is posted, in order, on the thread that performs the
        // session's actions, before any caller the same step answers is resumed.
        let observer = session.observe { event in mailbox.post(event) }
        operations = Operations(
            stage: { session.stage }, identity: { session.identity }, stopObserving: { session.removeObserver(observer) },
            changed: { session.changes.notify() },
            signIn: { () async throws(SessionError) in _ = try await session.signIn() },
            signInWithOptions: { options async throws(SessionError) in _ = try await session.signIn(options: options) },
            signInWithDeviceCode: { () async throws(SessionError) in _ = try await session.signInWithDeviceCode() },
            restore: { () async throws(SessionError) in _ = try await session.restore() },
            refresh: { () async throws(SessionError) in _ = try await session.refresh() },
            signOut: { () async throws(SessionError) in try await session.signOut() },
            deleteAccount: { () async throws(SessionError) in try await session.deleteAccount() })
        show(operations.stage())
        // The one task of the model: it brings events posted elsewhere to the main actor. An
        // observer is called synchronously on the session's thread, so the hop needs a task of
        // its own; it holds the model weakly and ends with it.
        let wakeups = mailbox.wakeups
        let task = Task { @MainActor [weak self] in
            for await _ in wakeups {
                guard let self else { return }
                self.catchUp()
            }
        }
        follower.withLock { $0 = task }
    }

    deinit {
        operations.stopObserving()
        mailbox.close()
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

    /// Asks for a token newer than the one held (see ``Session/refresh()``), for instance after the
    /// app's API refused the current one; a failure lands in ``lastError``.
    public func refresh() async {
        await run(operations.refresh)
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
            catchUp()
        } catch {
            // The events the call caused were posted before it returned: applied now, the model
            // shows the outcome, a failure the session reported as a transition included.
            catchUp()
            // Shown once: as the transition that reported it, when one did; otherwise as the
            // call's own error (a refusal that kept the session, a misuse). Cancelling is the
            // person's or the app's own choice.
            if lastError == nil, error != .cancelled { lastError = .call(error) }
        }
    }

    // MARK: Events

    /// Applies every event posted since the last call, in order, then tells the session's change
    /// feed (a test kit's wait on a model property wakes on it).
    private func catchUp() {
        let events = mailbox.take()
        guard !events.isEmpty else { return }
        for event in events { apply(event) }
        operations.changed()
    }

    /// Shows `stage`, and whom the session concerns in it.
    private func show(_ stage: SessionStage) {
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
        switch stage {
        case .active, .refreshing, .revoking, .disconnecting:
            refreshIdentity()
        case .signedOut, .handoff, .verifying:
            if identity != nil { identity = nil }
        }
    }

    private func apply(_ event: SessionEvent) {
        switch event {
        case .transition(let transition):
            show(transition.to)
            if SessionModelError.isWorthShowing(transition.reason) { lastError = .session(transition.reason) }
        case .subjectChanged, .anonymousUserPromoted, .guestStartedOver:
            refreshIdentity()
        case .deleteUserData, .deferredRevocationCompleted, .callbackRefused, .credentialStoreFallback, .credentialStoreLocked,
            .sessionFailed:
            // A failed session also reports its transition, whose reason is worth showing.
            break
        case .providerLogout(let outcome):
            // Signed out either way; a browser session the person asked to end and that is still
            // there is worth a word, a cancellation or a new sign-in is their own choice.
            switch outcome {
            case .timedOut, .presentationFailed, .unavailable:
                lastError = .session(.providerSessionNotEnded(outcome))
            case .completed, .cancelled, .superseded:
                break
            }
        }
    }

    private func refreshIdentity() {
        // The session hands out its identity only while it holds verified tokens; during a
        // sign-out or deletion the model keeps showing whom it concerns.
        guard let current = operations.identity() else { return }
        if identity != current { identity = current }
    }
}

/// Where a session's observer posts events for a ``SessionModel`` to apply on the main actor.
final class SessionModelMailbox: Sendable {
    private let events = Locked<[SessionEvent]>([])
    private let wakeup: AsyncStream<Void>.Continuation
    /// One element whenever events wait to be applied (at most one is buffered).
    let wakeups: AsyncStream<Void>

    init() {
        (wakeups, wakeup) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func post(_ event: SessionEvent) {
        events.withLock { $0.append(event) }
        wakeup.yield()
    }

    /// Every event posted and not taken yet, in order.
    func take() -> [SessionEvent] {
        events.withLock { events in
            defer { events.removeAll() }
            return events
        }
    }

    func close() {
        wakeup.finish()
    }
}
