import Foundation

extension SessionStateMachine {
    /// The app called `signInWithDeviceCode()`: the same handoff stage as a browser sign-in, with
    /// a device sign-in as its payload, and the same rules for who may start one.
    mutating func deviceSignIn(id: WaiterID, waiter: Waiter) -> [Action] {
        switch SignInAdmission(.device, in: state) {
        case .start(let from, let guest, let leaving):
            let left = leaving.map { leaveRevokingForSignIn($0) } ?? []
            return left + beginDeviceHandoff(id: id, waiter: waiter, from: from, guest: guest)
        case .answer(let result):
            return [.resume([waiter], result)]
        case .joinGuestBootstrap:
            return inconsistency("a device sign-in was admitted to a guest bootstrap", resuming: [waiter])
        case .outOfService:
            return outOfService(waiter: waiter)
        }
    }

    private mutating func beginDeviceHandoff(
        id: WaiterID, waiter: Waiter, from: SessionStage = .signedOut, guest: Tokens? = nil
    ) -> [Action] {
        generation += 1
        // The handoff timeout covers the code request; once the code is shown, `expires_in` rules.
        let timer = makeTimer()
        let handoff = Handoff(payload: .device(.requestingCode), timer: timer, waiters: WaiterList(id, waiter), guest: guest)
        state = .handoff(handoff)
        return [
            .transition(from: from, to: .handoff, reason: .deviceSignInRequested),
            .requestDeviceCode(generation: generation, cancel: handoff.work),
            .startTimer(timer, after: configuration.handoffTimeout),
        ]
    }

    /// The provider answered the device code request (RFC 8628 §3.2) at `now` on the wall clock.
    mutating func deviceCodeIssued(
        _ result: Result<DeviceAuthorization, SessionError>, now: Date, generation: UInt64
    ) -> [Action] {
        guard generation == self.generation, case .handoff(var handoff) = state, case .device(.requestingCode) = handoff.payload else {
            // The sign-in ended meanwhile (cancelled, timed out, signed out): the code is never shown.
            return []
        }
        let authorization: DeviceAuthorization
        switch result {
        case .success(let value):
            authorization = value
        case .failure(let error):
            let reason: TransitionReason =
                if case .provider = error.kind { .deviceSignInFailed(error) } else { Self.reason(for: error) }
            return endHandoff(handoff, reason: reason, error: error)
        }
        let planner = DevicePollPlanner(authorization)
        guard case .poll(let wait) = planner.firstStep else {
            // The code expires before the first poll could be made.
            return endHandoff(handoff, reason: .deviceCodeExpired, error: .deviceCodeExpired)
        }
        state = .modifying
        let timeout = handoff.timer
        handoff.timer = makeTimer()
        handoff.payload = .device(.waitingToPoll(DevicePolling(authorization: authorization, planner: planner, receivedAt: now)))
        state = .handoff(handoff)
        return [
            .cancelTimer(timeout),
            .transition(
                from: .handoff, to: .handoff, reason: .deviceCodeIssued(expiresInSeconds: Int(authorization.expiresIn.rounded(.down)))),
            .presentDeviceCode(DeviceCodePrompt(authorization), generation: generation, cancel: handoff.work),
            .startTimer(handoff.timer, after: wait),
        ]
    }

    /// A poll of the token endpoint was answered at `now` on the wall clock; the planner decides
    /// what follows (RFC 8628 §3.5).
    mutating func devicePollAnswered(_ answer: DevicePollAnswer, now: Date, generation: UInt64) -> [Action] {
        guard generation == self.generation, case .handoff(var handoff) = state, case .device(.polling(var polling)) = handoff.payload
        else {
            // The sign-in ended while the poll was in flight: its answer is moot, and any tokens in
            // it were never seen by anyone (the provider expires the unused grant).
            return []
        }
        let elapsed = Self.duration(seconds: max(0, now.timeIntervalSince(polling.receivedAt)))
        state = .modifying
        let step = polling.planner.next(after: answer, elapsed: elapsed)
        switch step {
        case .poll(let wait):
            handoff.timer = makeTimer()
            handoff.payload = .device(.waitingToPoll(polling))
            state = .handoff(handoff)
            var actions: [Action] = []
            let because: String? =
                switch answer {
                case .slowDown: "slow_down"
                case .transientFailure: "provider unavailable"
                default: nil
                }
            if let because {
                let reason = TransitionReason.devicePollDeferred(afterSeconds: Self.seconds(wait), because: because)
                actions.append(.transition(from: .handoff, to: .handoff, reason: reason))
            }
            actions.append(.startTimer(handoff.timer, after: wait))
            return actions
        case .finished(let response):
            state = .verifying(Verifying(attempt: nil, waiters: handoff.waiters, guest: handoff.guest))
            return [
                .cancelPresenter(handoff.work),
                .transition(from: .handoff, to: .verifying, reason: .deviceSignInApproved),
                .verifyDeviceTokens(response, generation: generation),
            ]
        case .failed(let failure):
            state = .handoff(handoff)
            switch failure {
            case .accessDenied:
                return endHandoff(handoff, reason: .authorizationDenied(error: failure.code), error: .authorizationDenied(failure.code))
            case .expired:
                return endHandoff(handoff, reason: .deviceCodeExpired, error: .deviceCodeExpired)
            case .rejected(let error):
                return endHandoff(handoff, reason: .deviceSignInFailed(.provider(error)), error: .provider(error))
            case .cancelled:
                return endHandoff(handoff, reason: .handoffCancelled, error: .cancelled)
            }
        }
    }

    /// A wall-clock interval as a duration, to the millisecond.
    static func duration(seconds: Double) -> Duration {
        .milliseconds(Int64((min(seconds, 86_400 * 365) * 1000).rounded()))
    }
}
