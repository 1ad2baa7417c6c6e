import Foundation

/// Performing what the machine asked for. Each input's action type has its own `perform`; what
/// several share (stage changes, resumed callers, timers, the presenter, the procedures) is
/// performed by one helper each.
extension Session {
    func perform(_ actions: [Machine.HandoffAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .present(let attempt, let generation): present(attempt, generation: generation)
            case .cancelPresenter: cancelPresenter()
            case .startTimer(let id, let after): startTimer(id, after: after)
            case .cancelTimer(let id): cancelTimer(id)
            case .exchangeCode(let code, let attempt, let generation):
                Task { await self.runExchange(code: Secret(code), attempt: attempt, generation: generation) }
            case .deferRevocation:
                Task { await self.deferCurrentRevocation() }
            }
        }
    }

    func perform(_ actions: [Machine.ExchangeAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .discardLateTokens(let tokens): Task { await self.discardLate(tokens) }
            }
        }
    }

    func perform(_ actions: [Machine.TokenAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .refresh(let order): startRefresh(order)
            }
        }
    }

    func perform(_ actions: [Machine.RefreshAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .startTimer(let id, let after): startTimer(id, after: after)
            case .discardLateTokens(let tokens): Task { await self.discardLate(tokens) }
            }
        }
    }

    func perform(_ actions: [Machine.EndingAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .cancelTimer(let id): cancelTimer(id)
            case .cancelPresenter: cancelPresenter()
            case .cancelRefresh:
                // The provider may already have rotated the token; the sign-out revokes what the store holds.
                refreshTask?.cancel()
                refreshTask = nil
            case .revoke(let generation, let attempt): Task { await self.runRevoke(generation: generation, attempt: attempt) }
            case .disconnect(let generation, let attempt): Task { await self.runDisconnect(generation: generation, attempt: attempt) }
            }
        }
    }

    func perform(_ actions: [Machine.ServerOperationAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .startTimer(let id, let after): startTimer(id, after: after)
            case .refresh(let order): startRefresh(order)
            case .presentEndSession(let order, let generation): presentEndSession(order, generation: generation)
            }
        }
    }

    func perform(_ actions: [Machine.RestoreAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .refresh(let order): startRefresh(order)
            case .revoke(let generation, let attempt): Task { await self.runRevoke(generation: generation, attempt: attempt) }
            case .disconnect(let generation, let attempt): Task { await self.runDisconnect(generation: generation, attempt: attempt) }
            }
        }
    }

    func perform(_ actions: [Machine.CancellationAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .cancelTimer(let id): cancelTimer(id)
            case .cancelPresenter: cancelPresenter()
            }
        }
    }

    func perform(_ actions: [Machine.TimerAction]) {
        defer { changes.notify() }
        for action in actions {
            switch action {
            case .output(let output): perform(output)
            case .cancelTimer(let id): cancelTimer(id)
            case .cancelPresenter: cancelPresenter()
            case .refresh(let order): startRefresh(order)
            case .revoke(let generation, let attempt): Task { await self.runRevoke(generation: generation, attempt: attempt) }
            case .disconnect(let generation, let attempt): Task { await self.runDisconnect(generation: generation, attempt: attempt) }
            case .pollDeviceToken(let authorization, let generation): pollDeviceToken(authorization, generation: generation)
            }
        }
    }

    func perform(_ output: Machine.Output) {
        switch output {
        case .transition(let from, let to, let reason):
            publish(.transition(SessionTransition(from: from, to: to, reason: reason, date: wallClock())))
        case .resume(let waiters, let result):
            // Made once: every caller waiting for a token shares it.
            let token = TokenOutcome(result)
            for waiter in waiters { waiter.resume(with: result, token: token) }
        case .emit(let event):
            publish(event)
        }
    }

    // MARK: - Shared actions

    func startTimer(_ id: TimerID, after duration: Duration) {
        let clock = self.clock
        timers[id] = Task {
            do {
                try await clock.sleep(for: duration)
            } catch {
                return
            }
            self.timerFired(id)
        }
    }

    func cancelTimer(_ id: TimerID) {
        timers.removeValue(forKey: id)?.cancel()
    }

    /// Ends the handoff's own work: the presenter, and a device sign-in's request in flight.
    func cancelPresenter() {
        presenterTask.withLock { task in
            task?.cancel()
            task = nil
        }
        deviceTask.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    private func startRefresh(_ order: Machine.RefreshOrder) {
        refreshTask = Task { await self.runRefresh(order) }
    }

    private func present(_ attempt: SignInAttempt, generation: UInt64) {
        let client = self.client
        let redirects = HandoffRedirects { redirectURI in
            // The options were validated when the attempt was made, so rendering them cannot fail.
            (try? client.authorizationURL(
                codeChallenge: attempt.codeChallenge, state: attempt.state, nonce: attempt.nonce, redirectURI: redirectURI,
                options: attempt.options)) ?? attempt.authorizationURL
        }
        let request = HandoffRequest(
            authorizationURL: attempt.authorizationURL, redirectURI: configuration.provider.redirectURI, redirects: redirects)
        let task = Task { await self.runPresenter(request, redirects: redirects, generation: generation) }
        presenterTask.withLock { $0 = task }
    }

    // MARK: - Inputs from child tasks

    func waiterCancelled(_ id: WaiterID) {
        perform(core.withLock { $0.waiterCancelled(id) })
    }

    private func timerFired(_ id: TimerID) {
        timers[id] = nil
        perform(core.withLock { $0.timerFired(id) })
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
        let (consumed, actions) = core.withLock { $0.callbackReceived(callback, expectedIssuer: expectedIssuer) }
        perform(actions)
        return consumed
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
                perform(core.withLock { $0.presenterFailed(error, generation: generation) })
            }
        } catch {
            perform(core.withLock { $0.presenterFailed(error, generation: generation) })
        }
    }
}
