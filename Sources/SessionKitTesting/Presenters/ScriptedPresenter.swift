public import Foundation
public import SessionKit
package import SessionKitCore
import Synchronization

/// A `HandoffPresenter` that plays a queue of scripted answers instead of showing a browser.
///
/// Each ``present(_:)`` takes the next ``Behaviour``: approve as a subject (through the simulated
/// provider's authorization page), deny, cancel, fail, or never answer. Approvals and denials come
/// back either as the returned callback URL (a browser session) or "app to app": `present`
/// returns `nil` and the callback is handed to the closure set with ``onAppToAppOpen(_:)``, which a
/// test wires to `Session.handle(_:)`. Every request is recorded in ``presentedRequests``.
///
/// The same queue answers the provider's end-session page at sign-out
/// (``Behaviour/endSession(delivery:)``) and device sign-in codes
/// (``presentDeviceCode(_:)``: ``Behaviour/enterDeviceCode(subject:decision:)``,
/// ``Behaviour/showDeviceCode``); a behaviour scripted for another kind of handoff fails the
/// presentation, so a mixed-up script fails instead of passing by accident.
///
/// ```swift
/// let presenter = ScriptedPresenter(provider: provider, behaviours: [.approve(subject: "alice")])
/// ```
public final class ScriptedPresenter: HandoffPresenter {
    /// One scripted answer to one `present` call.
    @nonexhaustive
    public enum Behaviour: Sendable, Equatable {
        /// The person signs in as `subject` and approves.
        case approve(subject: String, delivery: Delivery = .returned)
        /// The person refuses: the callback carries `error=access_denied`.
        case deny(delivery: Delivery = .returned)
        /// The person closes the page: `present` throws `HandoffError.cancelled`.
        case cancel
        /// The page cannot be shown: `present` throws `HandoffError.presentationFailed(_:)`.
        case fail(String)
        /// Nothing ever comes back: `present` suspends until its task is cancelled, then throws
        /// `HandoffError.cancelled`.
        case neverAnswer
        /// `present` returns exactly this URL (or `nil`), for testing unrelated or malformed callbacks.
        case answer(URL?)
        /// At sign-out: the browser visits the provider's end-session page, which ends its session
        /// and sends it back to the post-logout redirect URI with `state`.
        case endSession(delivery: Delivery = .returned)
        /// A device sign-in's code is shown; the person enters it on another device as `subject`
        /// and decides at once. `presentDeviceCode` then returns.
        case enterDeviceCode(subject: String, decision: SimulatedProviderDecision = .approve)
        /// A device sign-in's code is shown and nothing else happens here: the decision comes from
        /// the provider's script (``SimulatedProvider/scriptDeviceAuthorization(_:)``) or from
        /// the test. `presentDeviceCode` returns at once.
        case showDeviceCode
    }

    /// How an approval or denial reaches the app.
    @nonexhaustive
    public enum Delivery: Sendable, Equatable {
        /// Returned from `present`, as a browser session delivers it.
        case returned
        /// Handed to the ``onAppToAppOpen(_:)`` closure, with `present` returning `nil`, as an
        /// app-to-app universal link delivers it.
        case appToApp
    }

    private struct State {
        var behaviours: [Behaviour]
        var presented: [HandoffRequest] = []
        var deviceCodes: [DeviceCodePrompt] = []
        var appToApp: (@Sendable (URL) async -> Void)?
        var nextID: UInt64 = 0
        /// Presentations suspended by ``Behaviour/neverAnswer``.
        var suspended: [UInt64: CheckedContinuation<Void, Never>] = [:]
        /// Ids whose task was cancelled before they suspended.
        var cancelledEarly: Set<UInt64> = []
        /// Callers of ``waitForSuspendedPresentations(count:)``.
        var suspensionWaiters: [UInt64: (count: Int, continuation: CheckedContinuation<Void, Never>)] = [:]

        /// Removes and returns the waiters whose count is now reached.
        mutating func takeSatisfiedSuspensionWaiters() -> [CheckedContinuation<Void, Never>] {
            let ready = suspensionWaiters.filter { $0.value.count <= suspended.count }
            for id in ready.keys { suspensionWaiters.removeValue(forKey: id) }
            return ready.values.map(\.continuation)
        }
    }

    private let authorize: @Sendable (URL, String, SimulatedProviderDecision) throws(SimulatedProviderAuthorizationError) -> URL
    private let endSession: (@Sendable (URL) throws(SimulatedProviderEndSessionError) -> URL?)?
    private let decideDeviceCode: (@Sendable (String, String, SimulatedProviderDecision) -> Bool)?
    private let state: Locked<State>

    /// Creates a presenter that approves and denies through `provider`'s authorization page, ends
    /// sessions at its end-session page, and enters device codes at its verification page.
    public convenience init<C>(provider: SimulatedProvider<C>, behaviours: [Behaviour] = []) {
        self.init(
            authorize: { (url, subject, decision) throws(SimulatedProviderAuthorizationError) -> URL in
                try provider.authorize(url, subject: subject, decision: decision)
            },
            endSession: { (url) throws(SimulatedProviderEndSessionError) -> URL? in try provider.endSession(url) },
            decideDeviceCode: { userCode, subject, decision in
                provider.decideDeviceAuthorization(userCode: userCode, subject: subject, decision: decision)
            },
            behaviours: behaviours)
    }

    /// Creates a presenter with its own provider pages: given the authorization URL, the subject
    /// and the decision, `authorize` returns the callback URL; given the end-session URL,
    /// `endSession` returns the post-logout redirect (nil: none asked for); given the user code,
    /// the subject and the decision, `decideDeviceCode` answers a device sign-in (false: no such
    /// code). Without `endSession` or `decideDeviceCode`, behaviours that need them fail the presentation.
    public init(
        authorize: @escaping @Sendable (URL, String, SimulatedProviderDecision) throws(SimulatedProviderAuthorizationError) -> URL,
        endSession: (@Sendable (URL) throws(SimulatedProviderEndSessionError) -> URL?)? = nil,
        decideDeviceCode: (@Sendable (String, String, SimulatedProviderDecision) -> Bool)? = nil,
        behaviours: [Behaviour] = []
    ) {
        self.authorize = authorize
        self.endSession = endSession
        self.decideDeviceCode = decideDeviceCode
        self.state = Locked(State(behaviours: behaviours))
    }

    /// Appends behaviours to the queue.
    public func enqueue(_ behaviours: Behaviour...) {
        state.withLock { $0.behaviours.append(contentsOf: behaviours) }
    }

    /// Sets where app-to-app callbacks go, typically `{ url in _ = session.handle(url) }`.
    ///
    /// The closure runs before `present` returns `nil`, as on a device where the callback may
    /// arrive while the opening call is still returning.
    public func onAppToAppOpen(_ handler: @escaping @Sendable (URL) async -> Void) {
        state.withLock { $0.appToApp = handler }
    }

    /// Every request presented so far, in order (authorization and end-session pages).
    public var presentedRequests: [HandoffRequest] {
        state.withLock { $0.presented }
    }

    /// Every device sign-in code shown so far, in order.
    public var presentedDeviceCodes: [DeviceCodePrompt] {
        state.withLock { $0.deviceCodes }
    }

    /// How many scripted behaviours have not been used yet.
    public var remainingBehaviourCount: Int {
        state.withLock { $0.behaviours.count }
    }

    /// How many presentations are suspended by ``Behaviour/neverAnswer`` right now.
    public var suspendedPresentationCount: Int {
        state.withLock { $0.suspended.count }
    }

    /// Plays the next behaviour.
    ///
    /// With no behaviour left it throws `HandoffError.presentationFailed(_:)`, so a test that
    /// forgot to script an answer fails instead of hanging.
    public func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        let behaviour = state.withLock { state -> Behaviour? in
            state.presented.append(request)
            return state.behaviours.isEmpty ? nil : state.behaviours.removeFirst()
        }
        if request.kind == .endSession { return try await presentEndSession(request, behaviour: behaviour) }
        switch behaviour {
        case nil:
            throw .presentationFailed("no scripted behaviour left")
        case .endSession?, .enterDeviceCode?, .showDeviceCode?:
            throw .presentationFailed("the scripted behaviour does not answer an authorization page")
        case .approve(let subject, let delivery)?:
            return try await deliver(request, subject: subject, decision: .approve, delivery: delivery)
        case .deny(let delivery)?:
            return try await deliver(request, subject: "", decision: .deny, delivery: delivery)
        case .cancel?:
            throw .cancelled
        case .fail(let message)?:
            throw .presentationFailed(message)
        case .answer(let url)?:
            return url
        case .neverAnswer?:
            await suspendUntilCancelled()
            throw .cancelled
        }
    }

    /// Shows a device sign-in's code and plays the next behaviour.
    ///
    /// With no behaviour left it throws `HandoffError.presentationFailed(_:)`.
    public func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError) {
        let behaviour = state.withLock { state -> Behaviour? in
            state.deviceCodes.append(prompt)
            return state.behaviours.isEmpty ? nil : state.behaviours.removeFirst()
        }
        switch behaviour {
        case nil:
            throw .presentationFailed("no scripted behaviour left")
        case .enterDeviceCode(let subject, let decision)?:
            guard let decideDeviceCode else { throw .presentationFailed("no device verification page is set") }
            guard decideDeviceCode(prompt.userCode, subject, decision) else {
                throw .presentationFailed("the verification page does not know the user code")
            }
        case .showDeviceCode?:
            return
        case .cancel?:
            throw .cancelled
        case .fail(let message)?:
            throw .presentationFailed(message)
        case .neverAnswer?:
            await suspendUntilCancelled()
            throw .cancelled
        case .approve?, .deny?, .answer?, .endSession?:
            throw .presentationFailed("the scripted behaviour does not answer a device code")
        }
    }

    private func presentEndSession(_ request: HandoffRequest, behaviour: Behaviour?) async throws(HandoffError) -> URL? {
        switch behaviour {
        case nil:
            throw .presentationFailed("no scripted behaviour left")
        case .endSession(let delivery)?:
            guard let endSession else { throw .presentationFailed("no end-session page is set") }
            let redirect: URL?
            do {
                redirect = try endSession(request.url)
            } catch {
                throw .presentationFailed("the provider showed an error page: \(error)")
            }
            guard let redirect else { return nil }
            return try await deliver(redirect, delivery: delivery)
        case .cancel?:
            throw .cancelled
        case .fail(let message)?:
            throw .presentationFailed(message)
        case .answer(let url)?:
            return url
        case .neverAnswer?:
            await suspendUntilCancelled()
            throw .cancelled
        case .approve?, .deny?, .enterDeviceCode?, .showDeviceCode?:
            throw .presentationFailed("the scripted behaviour does not answer an end-session page")
        }
    }

    private func deliver(
        _ request: HandoffRequest, subject: String, decision: SimulatedProviderDecision, delivery: Delivery
    ) async throws(HandoffError) -> URL? {
        let callback: URL
        do {
            callback = try authorize(request.authorizationURL, subject, decision)
        } catch {
            throw .presentationFailed("the provider showed an error page: \(error)")
        }
        return try await deliver(callback, delivery: delivery)
    }

    private func deliver(_ callback: URL, delivery: Delivery) async throws(HandoffError) -> URL? {
        switch delivery {
        case .returned:
            return callback
        case .appToApp:
            guard let handler = state.withLock({ $0.appToApp }) else {
                throw .presentationFailed("no app-to-app handler is set")
            }
            await handler(callback)
            return nil
        }
    }

    /// Notified after every change of the suspended presentations, for ``SimulatedSessionEnvironment``'s waits.
    package let changes = SessionChangeFeed()

    // MARK: Suspension

    private func suspendUntilCancelled() async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    if state.cancelledEarly.remove(id) != nil { return nil }
                    state.suspended[id] = continuation
                    return state.takeSatisfiedSuspensionWaiters()
                }
                guard let ready else {
                    continuation.resume()
                    return
                }
                for waiter in ready { waiter.resume() }
                changes.notify()
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let continuation = state.suspended.removeValue(forKey: id) { return continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            continuation?.resume()
            changes.notify()
        }
    }

    /// Returns once at least `count` presentations are suspended by ``Behaviour/neverAnswer``
    /// (or when the calling task is cancelled), so a test can act exactly when the handoff waits.
    public func waitForSuspendedPresentations(count: Int = 1) async {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let satisfied = state.withLock { state -> Bool in
                    if state.cancelledEarly.remove(id) != nil || state.suspended.count >= count { return true }
                    state.suspensionWaiters[id] = (count, continuation)
                    return false
                }
                if satisfied { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                if let waiter = state.suspensionWaiters.removeValue(forKey: id) { return waiter.continuation }
                state.cancelledEarly.insert(id)
                return nil
            }
            waiter?.resume()
        }
    }
}
