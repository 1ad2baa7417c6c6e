import Foundation
import Testing

@testable import SessionKit

extension StateMachineTests {
    /// The machine behaves as `SessionTransitionTable` declares, for every (stage, event kind) pair.
    ///
    /// Each pair is fed representative inputs in every representative way into the stage (a plain
    /// entry, a retry waiting on its timer, a session restored from the journal…). A declared move
    /// must land in one of its targets, and every target must be reached by some input; a misuse must
    /// fail only the caller with the named error; an ignored event must change nothing.
    @Suite struct SessionStateMachineTableTests {
        typealias Script = MachineScript
        typealias Input = (label: String, feed: (inout MachineScript) -> Void)

        /// One (stage, event kind) pair of the table, named for the test list.
        struct Pair: Sendable, CustomTestStringConvertible {
            var stage: SessionStage
            var event: SessionInput

            var testDescription: String { "\(event) in \(stage)" }
        }

        static let pairs = SessionTransitionTable.rules.map { Pair(stage: $0.stage, event: $0.event) }

        static let unavailable = SessionError.provider(.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: ""))

        @Test func everyPairIsChecked() {
            #expect(Self.pairs.count == SessionStage.allCases.count * SessionInput.allCases.count)
        }

        @Test(arguments: pairs)
        func machineFollowsTheTable(_ pair: Pair) throws {
            let base = SessionTransitionTable.outcome(of: pair.event, in: pair.stage)
            // Each kind of entry follows its own outcome (a guest session's where the table
            // gives one), and must reach every target of an outcome that is its own.
            var reached: [GuestContext?: Set<SessionStage>] = [:]
            var probes = 0
            for (entry, start, guest) in Self.entries(into: pair.stage) + Self.guestEntries(into: pair.stage) {
                let outcome = SessionTransitionTable.outcome(of: pair.event, in: pair.stage, guest: guest)
                let own = guest == nil || outcome != base
                var isMove = false
                if case .moves = outcome { isMove = true }
                try #require(start.stage == pair.stage, "entry \(entry) does not reach \(pair.stage)")
                for input in Self.inputs(pair.event, in: start, late: !isMove) {
                    probes += 1
                    var script = start
                    input.feed(&script)
                    let context = Comment(rawValue: "\(input.label), \(entry)")
                    let transitions = script.lastActions.compactMap { action -> (from: SessionStage, to: SessionStage)? in
                        guard case .transition(let from, let to, _) = action else { return nil }
                        return (from, to)
                    }
                    switch outcome {
                    case .moves(let targets):
                        if own { reached[guest, default: []].insert(script.stage) }
                        #expect(targets.contains(script.stage), context)
                        if script.stage != start.stage {
                            #expect(transitions.first?.from == start.stage, context)
                            #expect(transitions.last?.to == script.stage, context)
                        }
                        if pair.event == .callback && script.stage != start.stage {
                            #expect(script.lastCallbackConsumed, context)
                        }
                    case .misuse(let misuse):
                        #expect(script.stage == start.stage, context)
                        #expect(script.generation == start.generation, context)
                        #expect(script.waiting == start.waiting, context)
                        guard script.lastActions.count == 1, case .resume(let waiters, .failed(let error)) = script.lastActions[0] else {
                            Issue.record("expected one failed resume, got \(script.lastActions.map(Script.line)); \(context.rawValue)")
                            continue
                        }
                        #expect(waiters == [1], context)
                        #expect(error == misuse.error, context)
                    case .ignored:
                        #expect(script.stage == start.stage, context)
                        #expect(script.generation == start.generation, context)
                        #expect(script.waiting == start.waiting, context)
                        #expect(script.liveTimers == start.liveTimers, context)
                        #expect(transitions.isEmpty, context)
                        for action in script.lastActions {
                            switch action {
                            case .resume(_, .done), .resume(_, .restored), .discardLateTokens, .emit(.callbackRefused):
                                break
                            default:
                                Issue.record("an ignored event acted: \(Script.line(action)); \(context.rawValue)")
                            }
                        }
                        if pair.event == .callback || pair.event == .endSessionReturn {
                            #expect(!script.lastCallbackConsumed, context)
                        }
                        if pair.event == .exchangeVerified || pair.event == .refreshVerified {
                            // Late tokens are never adopted, but must reach the shell to be revoked.
                            #expect(script.lastActions == [.discardLateTokens(Script.tokens("B"))], context)
                        }
                    }
                }
            }
            #expect(probes > 0)
            for guest in [nil] + GuestContext.allCases.map(Optional.some) {
                let outcome = SessionTransitionTable.outcome(of: pair.event, in: pair.stage, guest: guest)
                guard guest == nil || outcome != base, case .moves(let targets) = outcome else { continue }
                let seen = reached[guest] ?? []
                #expect(
                    Set(targets).isSubset(of: seen),
                    "\(guest?.rawValue ?? "plain"): targets never reached: \(Set(targets).subtracting(seen))")
            }
        }

        /// Every way into `stage` in which a guest session plays a part, with that part.
        static func guestEntries(into stage: SessionStage) -> [(String, MachineScript, GuestContext?)] {
            switch stage {
            case .signedOut:
                var ended = Script.makeGuestActive()
                _ = ended.signOut(waiter: 80)
                _ = ended.guestSessionEnded()
                return [("after a guest session ended", ended, nil)]
            case .handoff:
                var deviceRequesting = Script.makeGuestActive()
                _ = deviceRequesting.deviceSignIn(waiter: 94)
                var devicePolling = deviceRequesting
                _ = devicePolling.deviceCodeIssued()
                if let timer = devicePolling.devicePollTimer { _ = devicePolling.timerFired(timer) }
                return [
                    ("signing in from a guest session", Script.makeGuestSigningIn(), .signingInFromGuest),
                    ("a device sign-in from a guest session", deviceRequesting, .signingInFromGuest),
                    ("a device sign-in from a guest session, polling", devicePolling, .signingInFromGuest),
                ]
            case .verifying:
                var exchanging = Script.makeGuestSigningIn()
                _ = exchanging.callback()
                return [
                    ("bootstrapping a guest", Script.makeGuestBootstrapping(), .bootstrapping),
                    ("exchanging a guest's sign-in", exchanging, .signingInFromGuest),
                ]
            case .active:
                return [("a guest session", Script.makeGuestActive(), .guestSession)]
            case .refreshing:
                return [("renewing a guest's key", Script.makeGuestRenewing(waiters: [2, 3]), .guestSession)]
            case .revoking:
                var ending = Script.makeGuestActive()
                _ = ending.signOut(waiter: 80)
                return [("signing a guest out", ending, .guestSession)]
            case .disconnecting:
                var ending = Script.makeGuestActive()
                _ = ending.deleteAccount(waiter: 80)
                return [("deleting a guest session", ending, .guestSession)]
            }
        }

        // MARK: - Ways into each stage

        /// Every representative way into `stage`. Callers here are numbered 2 and up, never 1: the
        /// inputs below feed caller 1.
        static func entries(into stage: SessionStage) -> [(String, MachineScript, GuestContext?)] {
            plainEntries(into: stage).map { ($0.0, $0.1, nil) }
        }

        static func plainEntries(into stage: SessionStage) -> [(String, MachineScript)] {
            switch stage {
            case .signedOut:
                var ended = Script.makeActive()
                _ = ended.signOut(waiter: 80)
                _ = ended.serverConfirmed()
                return [("never signed in", Script.makeSignedOut()), ("after a session ended", ended)]
            case .handoff:
                var second = Script.makeHandoff()
                _ = second.presenterEnded(.cancelled)
                _ = second.signIn(attempt: 2, waiter: 81)
                var slowedDown = Script.makeDevicePolling()
                _ = slowedDown.devicePollAnswered(.slowDown, at: 5)
                return [
                    ("first handoff", Script.makeHandoff()), ("second handoff", second),
                    ("device code requested", Script.makeDeviceRequesting()), ("device code shown", Script.makeDeviceWaitingToPoll()),
                    ("device poll in flight", Script.makeDevicePolling()), ("device poll slowed down", slowedDown),
                ]
            case .verifying:
                return [("exchanging attempt 1", Script.makeVerifying()), ("verifying a device sign-in", Script.makeDeviceVerifying())]
            case .active:
                var refreshed = Script.makeRefreshing(waiters: [82])
                _ = refreshed.refreshFailed(.transient(unavailable, retryIn: .seconds(2)))
                _ = refreshed.timerFired(2)
                _ = refreshed.refreshSucceeded(Script.tokens("R"))
                return [
                    ("signed in", Script.makeActive()), ("after a retried refresh", refreshed),
                    ("signed in without a refresh token", Script.makeActiveWithoutRefreshToken()),
                ]
            case .refreshing:
                var retrying = Script.makeRefreshing(waiters: [2, 3])
                _ = retrying.refreshFailed(.transient(unavailable, retryIn: .seconds(2)))
                return [
                    ("refresh in flight", Script.makeRefreshing(waiters: [2, 3])),
                    ("retry scheduled", retrying),
                    ("restoring at launch", Script.makeRestoring()),
                ]
            case .revoking:
                var retrying = Script.makeRevoking()
                _ = retrying.serverFailed(.transient(.answered(503), retryIn: .seconds(1)))
                var journaled = Script.makeSignedOut()
                _ = journaled.restore(.pending(.signOut), waiter: Script.restoreCaller)
                return [
                    ("revocation in flight", Script.makeRevoking()),
                    ("retry scheduled", retrying),
                    ("resumed from the journal", journaled),
                    ("ending the provider session", Script.makeEndingProviderSession()),
                ]
            case .disconnecting:
                var retrying = Script.makeDisconnecting()
                _ = retrying.serverFailed(.transient(.answered(503), retryIn: .seconds(1)))
                var journaled = Script.makeSignedOut()
                _ = journaled.restore(.pending(.deleteAccount), waiter: Script.restoreCaller)
                return [
                    ("disconnect in flight", Script.makeDisconnecting()),
                    ("retry scheduled", retrying),
                    ("resumed from the journal", journaled),
                ]
            }
        }

        // MARK: - Representative inputs of each event kind

        /// The inputs of kind `event` for `script`'s stage. `late`: the stage does not own the event, so
        /// results are also fed as from the previous generation, and timers are ones no longer awaited.
        static func inputs(_ event: SessionInput, in script: MachineScript, late: Bool) -> [Input] {
            let generations = late && script.generation > 0 ? [script.generation, script.generation - 1] : [script.generation]
            func each<T>(_ values: [T], _ label: String, _ feed: @escaping (inout MachineScript, T, UInt64) -> Void) -> [Input] {
                generations.flatMap { generation in
                    values.map { value in ("\(label) \(value), gen \(generation)", { feed(&$0, value, generation) }) }
                }
            }
            switch event {
            case .signIn:
                return [("signIn", { _ = $0.signIn(attempt: 3, waiter: 1) })]
            case .callback:
                let state = script.handoffState ?? "state-1"
                return [
                    ("matching callback", { _ = $0.callback(code: "code-x", state: state, iss: Script.issuer) }),
                    ("state mismatch", { _ = $0.callback(state: "state-forged") }),
                    ("iss mismatch", { _ = $0.callback(state: state, iss: "https://attacker.example") }),
                    ("access_denied", { _ = $0.callback(code: nil, state: state, error: "access_denied") }),
                    ("no code", { _ = $0.callback(code: nil, state: state) }),
                ]
            case .presenterEnded:
                return each([HandoffError.cancelled, .presentationFailed("no browser")], "presenter ended") {
                    _ = $0.presenterEnded($1, generation: $2)
                }
            case .handoffTimeout:
                // A device sign-in that has its code has no handoff timeout: its poll timer is another input.
                if script.devicePhase == "waitingToPoll" || script.devicePhase == "polling" { return [] }
                return timers(script.handoffTimer ?? script.logoutTimer, orStale: script, label: "handoff timer")
            case .exchangeVerified:
                return each(["B"], "exchange verified") { _ = $0.exchangeSucceeded(Script.tokens($1), generation: $2) }
            case .exchangeFailed:
                return each([SessionError.verificationFailed(.nonceMismatch), unavailable], "exchange failed") {
                    _ = $0.exchangeFailed($1, generation: $2)
                }
            case .tokenRequested:
                return [
                    ("token requested while fresh", { _ = $0.tokenRequested(waiter: 1, at: 0) }),
                    ("token requested while due", { _ = $0.tokenRequested(waiter: 1, at: 3590) }),
                    ("token requested after expiry", { _ = $0.tokenRequested(waiter: 1, at: 3700) }),
                ]
            case .refreshRequested:
                return [
                    ("refresh requested", { _ = $0.refreshRequested(waiter: 1) }),
                    ("refresh requested after expiry", { _ = $0.refreshRequested(waiter: 1, at: 3700) }),
                ]
            case .refreshVerified:
                return each(["B"], "refresh verified") { _ = $0.refreshSucceeded(Script.tokens($1), generation: $2) }
            case .refreshRetryScheduled:
                return each([Duration.seconds(2)], "refresh retry in") {
                    _ = $0.refreshFailed(.transient(unavailable, retryIn: $1), generation: $2)
                }
            case .refreshGaveUp:
                return each([unavailable], "refresh gave up after") { _ = $0.refreshFailed(.transient($1, retryIn: nil), generation: $2) }
            case .refreshRejected:
                let errors: [SessionError] = [.refreshTokenRejected, .verificationFailed(.subjectMismatch), .storage(.noSpace)]
                return each(errors, "refresh rejected") { _ = $0.refreshFailed(.permanent($1), generation: $2) }
            case .retryTimerFired:
                return timers(script.retryTimer, orStale: script, label: "retry timer")
            case .callerCancelled:
                let waiting: [Input] = script.waiting.map { waiter in ("caller \(waiter) cancelled", { _ = $0.cancel(waiter: waiter) }) }
                return waiting + [("a caller no longer waiting cancelled", { _ = $0.cancel(waiter: 1) })]
            case .signOut:
                return [("signOut", { _ = $0.signOut(waiter: 1) })]
            case .deleteAccount:
                return [("deleteAccount", { _ = $0.deleteAccount(waiter: 1) })]
            case .restoreLoaded:
                let plans: [RestorePlan<ScriptTokens>] = [
                    .nothing, .session(Script.tokens("S")), .session(Script.tokens("S", expiresIn: 30)), .incompleteSession,
                    .foreignSession(.issuer), .dpopKeyUnavailable(DPoPKeyLoss(reason: .missing)), .pending(.signOut),
                    .pending(.deleteAccount), .session(Script.tokens("S", expiresIn: 30, refreshable: false)),
                    .session(Script.tokens("S", expiresIn: -10, refreshable: false)),
                ]
                return plans.map { plan in ("restore found \(plan)", { _ = $0.restore(plan, waiter: 1) }) }
            case .serverConfirmed:
                let plans: [(String, EndSessionPlan)] = [
                    ("no provider logout", .notRequested), ("provider logout unavailable", .unavailable("no endpoint")),
                    ("provider logout", .open(Script.endSessionOrder(2))),
                ]
                return each([nil, "alice"] as [String?], "server confirmed, subject") {
                    _ = $0.serverConfirmed(subject: $1, generation: $2)
                }
                    + each(plans.map(\.0), "server confirmed with") { script, label, generation in
                        _ = script.serverConfirmed(generation: generation, endSession: plans.first { $0.0 == label }!.1)
                    }
            case .serverFailedTransiently:
                return each([Duration.seconds(1)], "server failed, retry in") {
                    _ = $0.serverFailed(.transient(.answered(503), retryIn: $1), generation: $2)
                }
            case .serverRefused:
                let failures: [ServerOperationFailure] = [.refused(status: 401), .refused(status: 403), .cannotTell(.revocation)]
                return each(failures, "server refused") { _ = $0.serverFailed($1, generation: $2) }
                    + each(failures, "server refused, then provider logout") {
                        _ = $0.serverFailed($1, generation: $2, endSession: .open(Script.endSessionOrder(2)))
                    }
            case .storeFailed:
                return each([CredentialStoreError.noSpace, .locked("device locked")], "store failed") {
                    _ = $0.serverFailed(.storage($1), generation: $2)
                }
            case .notJournaled:
                return each([CredentialStoreError.noSpace], "not journaled") { _ = $0.serverNotJournaled($1, generation: $2) }
            case .deviceSignIn:
                return [("deviceSignIn", { _ = $0.deviceSignIn(waiter: 1) })]
            case .deviceCodeIssued:
                let results: [(String, Result<DeviceAuthorization, SessionError>)] = [
                    ("a code", .success(Script.deviceAuthorization(2))), ("a refusal", .failure(unavailable)),
                    ("a code expiring before the first poll", .success(Script.deviceAuthorization(3, expiresIn: 3))),
                ]
                return each(results.map(\.0), "device code request answered with") { script, label, generation in
                    _ = script.deviceCodeIssued(results.first { $0.0 == label }!.1, at: 1, generation: generation)
                }
            case .devicePollTimerFired:
                return timers(script.devicePollTimer, orStale: script, label: "device poll timer")
            case .devicePollAnswered:
                let answers: [DevicePollAnswer] = [
                    .authorizationPending, .slowDown, .tokens(TokenResponse(accessToken: Secret("device-access"))), .accessDenied,
                    .expiredToken, .transientFailure(retryAfter: nil),
                    .rejected(.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")),
                ]
                return each(answers, "device poll answered") { _ = $0.devicePollAnswered($1, at: 10, generation: $2) }
            case .startGuestSession:
                return [("startGuestSession", { _ = $0.startGuest(waiter: 1) })]
            case .guestBootstrapped:
                return each(["B"], "guest key issued") { _ = $0.guestBootstrapped(Script.guestTokens($1), generation: $2) }
            case .guestBootstrapFailed:
                return each([SessionError.guestBootstrapFailed(.invalidDeviceSecret), unavailable], "guest bootstrap failed") {
                    _ = $0.guestBootstrapFailed($1, generation: $2)
                }
            case .guestSessionEnded:
                let results: [(String, Result<Void, CredentialStoreError>)] = [
                    ("wiped", .success(())), ("store failed", .failure(.noSpace)),
                ]
                return each(results.map(\.0), "guest session end") { script, label, generation in
                    _ = script.guestSessionEnded(results.first { $0.0 == label }!.1, generation: generation)
                }
            case .endSessionReturn:
                return [
                    ("the provider's return", { _ = $0.endSessionReturned(Script.endSessionReturn()) }),
                    ("a return with a forged state", { _ = $0.endSessionReturned(Script.endSessionReturn(state: "forged")) }),
                    ("a return without state", { _ = $0.endSessionReturned(Script.endSessionReturn(state: nil)) }),
                    ("an unrelated URL", { _ = $0.endSessionReturned(URL(string: "com.example.app://elsewhere?state=logout-1")!) }),
                ]
            }
        }

        /// The live timer of this kind when the stage waits for one; otherwise every timer no longer
        /// awaited, and one never issued.
        private static func timers(_ live: TimerID?, orStale script: MachineScript, label: String) -> [Input] {
            let ids = live.map { [$0] } ?? script.staleTimers + [TimerID(raw: 1_000)]
            return ids.map { id in ("\(label) \(id.raw) fired", { _ = $0.timerFired(id) }) }
        }
    }
}
