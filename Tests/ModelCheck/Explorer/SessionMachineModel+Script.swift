import Foundation

extension SessionMachineModel {
    /// The input sequence as one line of a machine script (`MachineScript`, in the
    /// `SessionKitTests` target): the same calls with the same callers, generations, times, timer
    /// ids and token names, so pasting it into a test replays the counterexample exactly.
    func script(_ path: [Input]) -> String {
        var state = initialState()
        var lines = ["var m = MachineScript()"]
        for input in path {
            if let line = line(for: input, in: state) { lines.append(line) }
            _ = step(&state, input)
        }
        return lines.joined(separator: "; ")
    }

    private func line(for input: Input, in state: State) -> String? {
        let caller = state.nextCaller
        let at = Self.seconds(state.now)
        let next = "\"T\(state.nextTokens)\""
        let expiresIn = Self.seconds(state.now + Self.lifetime)
        switch input {
        case .signIn: return "_ = m.signIn(attempt: \(state.nextAttempt), waiter: \(caller))"
        case .deviceSignIn: return "_ = m.deviceSignIn(waiter: \(caller))"
        case .tokenRequested: return "_ = m.tokenRequested(waiter: \(caller), at: \(at))"
        case .refreshRequested: return "_ = m.refreshRequested(waiter: \(caller), at: \(at))"
        case .signOut: return "_ = m.signOut(waiter: \(caller))"
        case .deleteAccount: return "_ = m.deleteAccount(waiter: \(caller))"
        case .startGuest: return "_ = m.startGuest(waiter: \(caller))"
        case .restore(let kind):
            let plan: String
            switch kind {
            case .nothing: plan = ".nothing"
            case .fresh: plan = ".session(MachineScript.tokens(\(next), expiresIn: \(expiresIn)))"
            case .due: plan = ".session(MachineScript.tokens(\(next), expiresIn: \(Self.seconds(state.now + 30))))"
            case .expired: plan = ".session(MachineScript.tokens(\(next), expiresIn: \(Self.seconds(state.now - 10))))"
            case .withoutRefreshToken: plan = ".session(MachineScript.tokens(\(next), expiresIn: \(expiresIn), refreshable: false))"
            case .incomplete: plan = ".incompleteSession"
            case .foreign: plan = ".foreignSession(.issuer)"
            case .signOut: plan = ".pending(.signOut)"
            case .deletion: plan = ".pending(.deleteAccount)"
            }
            return "_ = m.restore(\(plan), waiter: \(caller), at: \(at))"
        case .callback(let kind):
            let attempt = Self.handoffAttempt(state.machine)
            switch kind {
            case .matching: return "_ = m.callback(state: \"\(attempt)\")"
            case .forged: return "_ = m.callback(state: \"forged\")"
            case .denied: return "_ = m.callback(code: nil, state: \"\(attempt)\", error: \"access_denied\")"
            case .repeated: return "_ = m.callback(state: \"\(attempt)\", repeated: [\"code\"])"
            }
        case .endSessionReturn: return "_ = m.endSessionReturned(MachineScript.endSessionReturn())"
        case .cancel(let caller): return "_ = m.cancel(waiter: \(caller))"
        case .shutDown: return "_ = m.shutDown()"
        case .clockAdvances: return nil
        case .timerFires(let raw): return "_ = m.timerFired(\(raw))"
        case .result(let index, let result):
            let work = state.work[index]
            let generation = "generation: \(work.generation)"
            let subject = heldTokens(state.machine)?.subject
            switch (work.kind, result) {
            case (.exchange, .exchanged):
                return "_ = m.exchangeSucceeded(MachineScript.tokens(\(next), expiresIn: \(expiresIn)), \(generation))"
            case (.exchange, _): return "_ = m.exchangeFailed(.verificationFailed(.badSignature), \(generation))"
            case (.refresh, .refreshed):
                return
                    "_ = m.refreshSucceeded(MachineScript.tokens(\(next), expiresIn: \(expiresIn), subject: \"\(subject ?? "alice")\"), \(generation))"
            case (.renewal, .refreshed):
                return
                    "_ = m.refreshSucceeded(MachineScript.guestTokens(\(next), expiresIn: \(expiresIn), subject: \"\(subject ?? "guest-1")\"), \(generation))"
            case (.renewal, .startedOver):
                return
                    "_ = m.refreshSucceeded(MachineScript.guestTokens(\(next), expiresIn: \(expiresIn), subject: \"guest-2\"), \(generation))"
            case (.refresh, .retry), (.renewal, .retry):
                return "_ = m.refreshFailed(.transient(.provider(.answered(503)), retryIn: .seconds(5)), \(generation), at: \(at))"
            case (.refresh, .gaveUp), (.renewal, .gaveUp):
                return "_ = m.refreshFailed(.transient(.provider(.answered(503)), retryIn: nil), \(generation), at: \(at))"
            case (.refresh, .rejected):
                return "_ = m.refreshFailed(.rejected(answer: .answered(400, \"invalid_grant\")), \(generation), at: \(at))"
            case (.refresh, _), (.renewal, _):
                return "_ = m.refreshFailed(.permanent(.verificationFailed(.badSignature)), \(generation), at: \(at))"
            case (.bootstrap, .bootstrapped):
                return "_ = m.guestBootstrapped(MachineScript.guestTokens(\(next), expiresIn: \(expiresIn)), \(generation))"
            case (.bootstrap, _): return "_ = m.guestBootstrapFailed(.provider(.answered(503)), \(generation))"
            case (.endGuest, .ended): return "_ = m.guestSessionEnded(.success(()), \(generation))"
            case (.endGuest, _): return "_ = m.guestSessionEnded(.failure(.ioFailure(\"io\")), \(generation))"
            case (.revoke, .confirmed), (.disconnect, .confirmed): return "_ = m.serverConfirmed(\(generation))"
            case (.revoke, .confirmedThenLogout):
                return "_ = m.serverConfirmed(\(generation), endSession: .open(MachineScript.endSessionOrder()))"
            case (_, .notJournaled): return "_ = m.serverNotJournaled(.noSpace, \(generation))"
            case (.revoke, .transient), (.disconnect, .transient):
                return "_ = m.serverFailed(.transient(.answered(503), retryIn: .seconds(5)), \(generation))"
            case (.revoke, .cannotTell), (.disconnect, .cannotTell): return "_ = m.serverFailed(.cannotTell(.revocation), \(generation))"
            case (.revoke, .refused), (.disconnect, .refused): return "_ = m.serverFailed(.refused(status: 403), \(generation))"
            case (.revoke, .storeLocked), (.disconnect, .storeLocked):
                return "_ = m.serverFailed(.storage(.locked(\"locked\")), \(generation))"
            case (.revoke, _), (.disconnect, _): return "_ = m.serverFailed(.storage(.ioFailure(\"io\")), \(generation))"
            case (.presenter, .presentationFailed): return "_ = m.presenterEnded(.presentationFailed(\"gone\"), \(generation))"
            case (.presenter, _), (.endSessionPage, _): return "_ = m.presenterEnded(.cancelled, \(generation))"
            case (.revokeQueued, .queueEmpty): return "_ = m.queuedRevocationAnswered(.queueEmpty)"
            case (.revokeQueued, .queueRemoved): return "_ = m.queuedRevocationAnswered(.removed(told: true))"
            case (.revokeQueued, _): return "_ = m.queuedRevocationAnswered(.transient(retryIn: .seconds(5)))"
            case (.storeWork, .queued): return "_ = m.revocationsQueued()"
            case (.storeWork, _): return nil
            case (.deviceCode, .codeIssued): return "_ = m.deviceCodeIssued(at: \(at), \(generation))"
            case (.deviceCode, _): return "_ = m.deviceCodeIssued(.failure(.provider(.answered(503))), at: \(at), \(generation))"
            case (.devicePoll, _):
                let answer =
                    switch result {
                    case .pollSlowDown: ".slowDown"
                    case .pollApproved: ".tokens(TokenResponse(accessToken: Secret(\"device-access\"), expiresIn: 3600))"
                    case .pollDenied: ".accessDenied"
                    case .pollExpired: ".expiredToken"
                    case .pollTransient: ".transientFailure(retryAfter: nil)"
                    case .pollRejected: ".rejected(.answered(400, \"invalid_grant\"))"
                    case .pollCancelled: ".cancelled"
                    default: ".authorizationPending"
                    }
                return "_ = m.devicePollAnswered(\(answer), at: \(at), \(generation))"
            }
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
