import Foundation
import SessionKitCore

/// The one action runner. Every input goes through ``modify(_:)``: one step of the machine under
/// the session's lock, whose actions are queued under the same lock and performed, in order, by
/// one thread at a time, after the lock is released. Long work starts as a child of the session's
/// ``TaskOwner`` and reports back as another input.
extension Session {
    /// Runs one step of the machine and performs the actions it returns. Returns `false`, having
    /// done nothing, when `step` returns `nil`.
    @discardableResult
    func modify(_ step: (inout Machine) -> [Machine.Action]?) -> Bool {
        let (stepped, mustPerform): (Bool, Bool) = core.withLock { core in
            guard let actions = step(&core.machine) else { return (false, false) }
            return (true, core.enqueue(actions))
        }
        if mustPerform {
            performPending()
        } else if stepped {
            // A step with nothing to perform may still have changed what a test waits on (a
            // caller now waits in the machine); the performer notifies after its own batches.
            changes.notify()
        }
        return stepped
    }

    /// Runs one step that also answers a value (whether a callback was consumed).
    func modifyAnswering<Value: Sendable>(_ step: (inout Machine) -> (Value, [Machine.Action])) -> Value {
        let (value, mustPerform): (Value, Bool) = core.withLock { core in
            let (value, actions) = step(&core.machine)
            return (value, core.enqueue(actions))
        }
        if mustPerform { performPending() } else { changes.notify() }
        return value
    }

    /// Performs queued actions until none is left. Only one thread performs at a time; a step
    /// taken meanwhile (here or elsewhere) queues its actions for this loop.
    private func performPending() {
        while let batch = core.withLock({ $0.takePending() }) {
            for (index, action) in batch { perform(action, index: index) }
            changes.notify()
        }
    }

    private func perform(_ action: Machine.Action, index: UInt64) {
        switch action {
        case .transition(let from, let to, let reason):
            publish(.transition(SessionTransition(from: from, to: to, reason: reason, date: wallClock())), index: index)
        case .resume(let waiters, let result):
            // Made once: every caller waiting for a token shares it.
            let token = TokenOutcome(result)
            for waiter in waiters { waiter.resume(with: result, token: token) }
        case .emit(let event):
            publish(event, index: index)
        case .startTimer(let id, let after):
            startTimer(id, after: after)
        case .cancelTimer(let id):
            // A timer that fires before this reaches it is dropped by the machine as stale.
            id.cancel.token.cancel()
        case .present(let attempt, let generation, let cancel):
            present(attempt, generation: generation, cancelledBy: cancel.token)
        case .presentDeviceCode(let prompt, let generation, let cancel):
            presentDeviceCode(prompt, generation: generation, cancelledBy: cancel.token)
        case .presentEndSession(let order, let generation, let cancel):
            presentEndSession(order, generation: generation, cancelledBy: cancel.token)
        case .cancelPresenter(let handoffWork):
            handoffWork.token.cancel()
        case .exchangeCode(let code, let attempt, let generation):
            owner.spawn { await self.runExchange(code: Secret(code), attempt: attempt, generation: generation) }
        case .requestDeviceCode(let generation, let cancel):
            owner.spawn(cancelledBy: cancel.token) { await self.requestDeviceCode(generation: generation) }
        case .pollDeviceToken(let authorization, let generation, let cancel):
            owner.spawn(cancelledBy: cancel.token) { await self.pollDeviceToken(authorization, generation: generation) }
        case .verifyDeviceTokens(let response, let generation):
            owner.spawn { await self.verifyDeviceSignIn(response, generation: generation) }
        case .refresh(let order):
            owner.spawn(cancelledBy: order.cancel.token) {
                await self.inBackgroundTask("SessionKit refresh") { await self.runRefresh(order) }
            }
        case .cancelRefresh(let attempt):
            // The provider may already have rotated the token; the sign-out revokes what the store holds.
            attempt.token.cancel()
        case .bootstrapGuest(let generation):
            owner.spawn {
                await self.inBackgroundTask("SessionKit guest bootstrap") { await self.runGuestBootstrap(generation: generation) }
            }
        case .renewGuestKey(let order):
            // Like a refresh's: a sign-out cancels it, and the machine drops what it reports.
            owner.spawn(cancelledBy: order.cancel.token) {
                await self.inBackgroundTask("SessionKit guest renewal") { await self.runGuestRenewal(order) }
            }
        case .resetGuestCredential:
            owner.spawn { await self.resetGuestCredential() }
        case .endGuestSession(let generation):
            owner.spawn { await self.runEndGuestSession(generation: generation) }
        case .discardLateTokens(let tokens):
            owner.spawn { await self.discardLate(tokens) }
        case .revoke(let generation, let attempt):
            owner.spawn {
                await self.inBackgroundTask("SessionKit sign-out") { await self.runRevoke(generation: generation, attempt: attempt) }
            }
        case .disconnect(let generation, let attempt):
            owner.spawn {
                await self.inBackgroundTask("SessionKit account deletion") {
                    await self.runDisconnect(generation: generation, attempt: attempt)
                }
            }
        case .deferRevocation:
            owner.spawn { await self.deferCurrentRevocation() }
        case .revokeQueued(let attempt):
            owner.spawn {
                await self.inBackgroundTask("SessionKit revocation") { await self.revokeFirstQueued(attempt: attempt) }
            }
        }
    }

    // MARK: - Shared actions

    /// Runs one attempt inside a background task when the configuration has a provider (iOS), so
    /// a rotated token or a journal is made durable before the app is suspended.
    private func inBackgroundTask(_ name: String, _ work: () async -> Void) async {
        guard let tasks = configuration.backgroundTasks else { return await work() }
        await tasks.withBackgroundTask(named: name, work)
    }

    private func publish(_ event: SessionEvent, index: UInt64) {
        let (observers, streams) = core.withLock { $0.audience(of: index) }
        for observer in observers { observer(event) }
        for stream in streams { stream.yield(event) }
    }

    private func startTimer(_ id: TimerID, after duration: Duration) {
        let clock = self.clock
        // Weak: a handoff's timeout must not keep a session nobody holds alive for five minutes.
        owner.spawn(cancelledBy: id.cancel.token) { [weak self] in
            do {
                try await clock.sleep(for: duration)
            } catch {
                return
            }
            self?.modify { $0.timerFired(id) }
        }
    }

    private func present(_ attempt: SignInAttempt, generation: UInt64, cancelledBy token: CancelToken) {
        let client = signInClient(attempt.dpopKey)
        let redirects = HandoffRedirects { redirectURI in
            // The options were validated when the attempt was made, so rendering them cannot fail.
            (try? client.authorizationURL(
                codeChallenge: attempt.codeChallenge, state: attempt.state, nonce: attempt.nonce, redirectURI: redirectURI,
                options: attempt.options)) ?? attempt.authorizationURL
        }
        let request = HandoffRequest(
            authorizationURL: attempt.authorizationURL, redirectURI: configuration.provider.redirectURI, redirects: redirects)
        owner.spawn(cancelledBy: token) { await self.runPresenter(request, redirects: redirects, generation: generation) }
    }

    private func presentDeviceCode(_ prompt: DeviceCodePrompt, generation: UInt64, cancelledBy token: CancelToken) {
        let presenter = self.presenter
        owner.spawn(cancelledBy: token) {
            do throws(HandoffError) {
                try await presenter.presentDeviceCode(prompt)
            } catch {
                self.modify { $0.presenterFailed(error, generation: generation) }
            }
        }
    }

    // MARK: - Inputs from callers and children

    func waiterCancelled(_ id: WaiterID) {
        modify { $0.waiterCancelled(id) }
    }

    /// Tokens were added to the store's revocation queue.
    func revocationsQueued() {
        modify { $0.revocationsQueued() }
    }

    /// Feeds a callback that matched the configured redirect URI, or (`redirectURI`) the one a
    /// presenter rendered the attempt for.
    func consumeCallback(_ url: URL, redirectURI: URL?) -> Bool {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery ?? ""
        let fields = FormEncoding.decode(query)
        let callback = CallbackParameters(
            code: fields["code"], state: fields["state"], error: fields["error"], issuer: fields["iss"], redirectURI: redirectURI,
            repeatedNames: FormEncoding.repeatedNames(in: query))
        let expectedIssuer = configuration.provider.issuer
        return modifyAnswering { $0.callbackReceived(callback, expectedIssuer: expectedIssuer) }
    }

    private func runPresenter(_ request: HandoffRequest, redirects: HandoffRedirects, generation: UInt64) async {
        do {
            guard let callback = try await presenter.present(request) else {
                // App-to-app: the answer arrives through handle(_:).
                return
            }
            // A redirect URI the presenter chose comes first: the exchange must name that one.
            let consumed =
                if let redirectURI = redirects.redirectURI(matching: callback) {
                    consumeCallback(callback, redirectURI: redirectURI)
                } else if configuration.provider.isCallback(callback) {
                    consumeCallback(callback, redirectURI: nil)
                } else {
                    false
                }
            if !consumed {
                let error = HandoffError.presentationFailed("the callback does not match the redirect URI")
                modify { $0.presenterFailed(error, generation: generation) }
            }
        } catch {
            modify { $0.presenterFailed(error, generation: generation) }
        }
    }
}
