/// The inputs the session state machine reacts to, by kind: what goes *into* the machine.
///
/// Not to be confused with ``SessionEvent``, what the session tells the app.
package enum SessionInput: String, Sendable, Hashable, CaseIterable {
    /// The app called `signIn()`.
    case signIn
    /// A callback URL matching the redirect URI arrived.
    case callback
    /// The presenter ended without a callback (cancelled or failed); at sign-out, the provider's
    /// end-session page ended without a return.
    case presenterEnded
    /// The handoff timer fired (a sign-in's, or at sign-out, the provider logout's).
    case handoffTimeout
    /// The code exchange returned verified tokens.
    case exchangeVerified
    /// The code exchange or its verification failed.
    case exchangeFailed
    /// A caller asked for a valid access token.
    case tokenRequested
    /// The app asked for a refresh.
    case refreshRequested
    /// A refresh returned verified tokens.
    case refreshVerified
    /// A refresh failed transiently and the retry policy scheduled another try.
    case refreshRetryScheduled
    /// A refresh failed transiently and the retry policy gave up.
    case refreshGaveUp
    /// A refresh failed for good (`invalid_grant`, id_token rejected, store failed).
    case refreshRejected
    /// A retry timer fired.
    case retryTimerFired
    /// A waiting caller's task was cancelled.
    case callerCancelled
    /// The app called `signOut()`.
    case signOut
    /// The app called `deleteAccount()`.
    case deleteAccount
    /// `restore()` loaded the store.
    case restoreLoaded
    /// The provider confirmed a revocation or a disconnect.
    case serverConfirmed
    /// A server-first call failed transiently.
    case serverFailedTransiently
    /// The provider refused a server-first call (401/403), or could not be told.
    case serverRefused
    /// The store failed while journaling or completing a server-first call.
    case storeFailed
    /// The store was read but a server-first call could not be journaled; the call goes on.
    case notJournaled
    /// The app called `signInWithDeviceCode()` (RFC 8628).
    case deviceSignIn
    /// The provider answered the device code request (a code, or a refusal).
    case deviceCodeIssued
    /// A device sign-in's poll interval ended.
    case devicePollTimerFired
    /// The token endpoint answered a device sign-in's poll.
    case devicePollAnswered
    /// A URL that may be the provider's return from its end-session page arrived.
    case endSessionReturn
    /// The app called `startGuestSession()`.
    case startGuestSession
    /// A guest session's first bootstrap issued a key.
    case guestBootstrapped
    /// A guest session's first bootstrap gave no key.
    case guestBootstrapFailed
    /// The local wipe that ends a guest session finished (or the store failed).
    case guestSessionEnded
}

/// The part a guest session plays in a stage, where the stage's outcomes differ for it.
package enum GuestContext: String, Sendable, Hashable, CaseIterable {
    /// `verifying`: a guest session's first bootstrap is in flight.
    case bootstrapping
    /// `active` or `refreshing`: the session is a guest's (its key, or the key's renewal);
    /// `revoking` or `disconnecting`: a guest session is being wiped.
    case guestSession
    /// `handoff` or `verifying`: a sign-in that started from a guest session, which it returns to
    /// if it fails.
    case signingInFromGuest
}

/// What a (stage, input) pair leads to.
package enum TransitionOutcome: Sendable, Hashable {
    /// The machine moves to one of these stages (the same stage counts), depending on the event's data.
    case moves(to: [SessionStage])
    /// The app misused the API: the caller gets the thrown ``SessionError`` the misuse names; the
    /// stage is unchanged.
    case misuse(SessionMisuse)
    /// A harmless race (a late result, a stale timer): nothing happens.
    case ignored(String)
}

/// The session's contract: every (stage, event) pair and its outcome.
///
/// `Diagrams/stages.mmd` is generated from ``mermaid()``, and the test suite checks both that the
/// committed diagram matches and that the machine behaves as this table says for every pair.
package enum SessionTransitionTable {
    /// The outcome of `event` in `stage`.
    package static func outcome(of event: SessionInput, in stage: SessionStage) -> TransitionOutcome {
        switch (stage, event) {
        case (.signedOut, .signIn): .moves(to: [.handoff])
        case (.revoking, .signIn): .moves(to: [.handoff])
        case (.handoff, .signIn), (.verifying, .signIn): .misuse(.signInInProgress)
        case (.active, .signIn), (.refreshing, .signIn): .misuse(.alreadySignedIn)
        case (.disconnecting, .signIn): .misuse(.accountDeletionInProgress)

        case (.handoff, .callback): .moves(to: [.verifying, .signedOut, .handoff])
        case (_, .callback): .ignored("no handoff waits for it: not consumed")

        case (.handoff, .presenterEnded): .moves(to: [.signedOut])
        case (.revoking, .presenterEnded): .moves(to: [.revoking, .signedOut])
        case (_, .presenterEnded): .ignored("the handoff already ended")

        case (.handoff, .handoffTimeout): .moves(to: [.signedOut])
        case (.revoking, .handoffTimeout): .moves(to: [.revoking, .signedOut])
        case (_, .handoffTimeout): .ignored("stale timer")

        case (.verifying, .exchangeVerified): .moves(to: [.active])
        case (_, .exchangeVerified): .ignored("late result: tokens discarded and revoked")
        case (.verifying, .exchangeFailed): .moves(to: [.signedOut])
        case (_, .exchangeFailed): .ignored("late result")

        case (.active, .tokenRequested): .moves(to: [.active, .refreshing, .signedOut])
        case (.refreshing, .tokenRequested): .moves(to: [.refreshing])
        case (.signedOut, .tokenRequested), (.handoff, .tokenRequested), (.verifying, .tokenRequested): .misuse(.notSignedIn)
        case (.revoking, .tokenRequested): .misuse(.signOutInProgress)
        case (.disconnecting, .tokenRequested): .misuse(.accountDeletionInProgress)

        case (.active, .refreshRequested): .moves(to: [.refreshing, .active, .signedOut])
        case (.refreshing, .refreshRequested): .moves(to: [.refreshing])
        case (.signedOut, .refreshRequested), (.handoff, .refreshRequested), (.verifying, .refreshRequested): .misuse(.notSignedIn)
        case (.revoking, .refreshRequested): .misuse(.signOutInProgress)
        case (.disconnecting, .refreshRequested): .misuse(.accountDeletionInProgress)

        case (.refreshing, .refreshVerified): .moves(to: [.active])
        case (_, .refreshVerified): .ignored("late result: tokens discarded and revoked")
        case (.refreshing, .refreshRetryScheduled): .moves(to: [.refreshing])
        case (_, .refreshRetryScheduled): .ignored("late result")
        case (.refreshing, .refreshGaveUp): .moves(to: [.active, .signedOut])
        case (_, .refreshGaveUp): .ignored("late result")
        case (.refreshing, .refreshRejected): .moves(to: [.signedOut])
        case (_, .refreshRejected): .ignored("late result")

        case (.refreshing, .retryTimerFired), (.revoking, .retryTimerFired), (.disconnecting, .retryTimerFired):
            .moves(to: [stage])
        case (_, .retryTimerFired): .ignored("stale timer")

        case (.handoff, .callerCancelled): .moves(to: [.handoff, .signedOut])
        case (.verifying, .callerCancelled), (.refreshing, .callerCancelled), (.revoking, .callerCancelled),
            (.disconnecting, .callerCancelled):
            .moves(to: [stage])
        case (.signedOut, .callerCancelled), (.active, .callerCancelled): .ignored("the caller was already resumed")

        case (.active, .signOut), (.refreshing, .signOut): .moves(to: [.revoking])
        case (.revoking, .signOut): .moves(to: [.revoking])
        case (.handoff, .signOut), (.verifying, .signOut): .moves(to: [.signedOut])
        case (.signedOut, .signOut): .ignored("already signed out")
        case (.disconnecting, .signOut): .misuse(.accountDeletionInProgress)

        case (.active, .deleteAccount), (.refreshing, .deleteAccount), (.disconnecting, .deleteAccount): .moves(to: [.disconnecting])
        case (.signedOut, .deleteAccount), (.handoff, .deleteAccount), (.verifying, .deleteAccount): .misuse(.notSignedIn)
        case (.revoking, .deleteAccount): .misuse(.signOutInProgress)

        case (.signedOut, .restoreLoaded): .moves(to: [.signedOut, .active, .refreshing, .revoking, .disconnecting])
        case (_, .restoreLoaded): .ignored("already running: nothing to restore")

        case (.revoking, .serverConfirmed): .moves(to: [.signedOut, .revoking])
        case (.disconnecting, .serverConfirmed): .moves(to: [.signedOut])
        case (_, .serverConfirmed): .ignored("superseded")
        case (.revoking, .serverFailedTransiently), (.disconnecting, .serverFailedTransiently): .moves(to: [stage])
        case (_, .serverFailedTransiently): .ignored("superseded")
        case (.revoking, .serverRefused): .moves(to: [.signedOut, .revoking])
        case (.disconnecting, .serverRefused): .moves(to: [.active, .refreshing])
        case (_, .serverRefused): .ignored("superseded")
        case (.revoking, .storeFailed): .moves(to: [.active, .signedOut, .revoking])
        case (.disconnecting, .storeFailed): .moves(to: [.active, .signedOut])
        case (_, .storeFailed): .ignored("superseded")
        case (.revoking, .notJournaled), (.disconnecting, .notJournaled): .moves(to: [stage])
        case (_, .notJournaled): .ignored("superseded")

        case (.signedOut, .deviceSignIn), (.revoking, .deviceSignIn): .moves(to: [.handoff])
        case (.handoff, .deviceSignIn), (.verifying, .deviceSignIn): .misuse(.signInInProgress)
        case (.active, .deviceSignIn), (.refreshing, .deviceSignIn): .misuse(.alreadySignedIn)
        case (.disconnecting, .deviceSignIn): .misuse(.accountDeletionInProgress)

        case (.handoff, .deviceCodeIssued): .moves(to: [.handoff, .signedOut])
        case (_, .deviceCodeIssued): .ignored("late result")
        case (.handoff, .devicePollTimerFired): .moves(to: [.handoff])
        case (_, .devicePollTimerFired): .ignored("stale timer")
        case (.handoff, .devicePollAnswered): .moves(to: [.handoff, .verifying, .signedOut])
        case (_, .devicePollAnswered): .ignored("late result")

        case (.revoking, .endSessionReturn): .moves(to: [.revoking, .signedOut])
        case (_, .endSessionReturn): .ignored("no provider logout waits for it: not consumed")

        case (.signedOut, .startGuestSession): .moves(to: [.verifying])
        case (.handoff, .startGuestSession), (.verifying, .startGuestSession): .misuse(.signInInProgress)
        case (.active, .startGuestSession), (.refreshing, .startGuestSession): .misuse(.alreadySignedIn)
        case (.revoking, .startGuestSession): .misuse(.signOutInProgress)
        case (.disconnecting, .startGuestSession): .misuse(.accountDeletionInProgress)
        case (_, .guestBootstrapped): .ignored("late result: the key is discarded")
        case (_, .guestBootstrapFailed): .ignored("late result")
        case (_, .guestSessionEnded): .ignored("superseded")
        }
    }

    /// The outcome of `event` in `stage` when a guest session plays `guest` there: the same as
    /// ``outcome(of:in:)`` except for the pairs ``guestRules`` lists.
    package static func outcome(of event: SessionInput, in stage: SessionStage, guest: GuestContext?) -> TransitionOutcome {
        guard let guest, let outcome = guestOutcome(of: event, in: stage, guest: guest) else { return outcome(of: event, in: stage) }
        return outcome
    }

    /// Where a guest session changes a pair's outcome; `nil` where it does not.
    private static func guestOutcome(of event: SessionInput, in stage: SessionStage, guest: GuestContext) -> TransitionOutcome? {
        switch (guest, stage, event) {
        case (.bootstrapping, .verifying, .startGuestSession): .moves(to: [.verifying])
        case (.bootstrapping, .verifying, .guestBootstrapped): .moves(to: [.active])
        case (.bootstrapping, .verifying, .guestBootstrapFailed): .moves(to: [.signedOut])
        case (.bootstrapping, .verifying, .exchangeVerified): .ignored("no code is being exchanged: tokens discarded and revoked")
        case (.bootstrapping, .verifying, .exchangeFailed): .ignored("no code is being exchanged")

        case (.guestSession, .active, .signIn), (.guestSession, .active, .deviceSignIn): .moves(to: [.handoff])
        case (.guestSession, .active, .startGuestSession): .moves(to: [.active])
        case (.guestSession, .active, .tokenRequested): .moves(to: [.active, .refreshing])
        case (.guestSession, .active, .refreshRequested): .moves(to: [.refreshing])
        // As for any session (listed so the guest diagram tells a guest session's whole story).
        case (.guestSession, .active, .signOut), (.guestSession, .refreshing, .signOut): .moves(to: [.revoking])
        case (.guestSession, .active, .deleteAccount), (.guestSession, .refreshing, .deleteAccount): .moves(to: [.disconnecting])
        case (.guestSession, .refreshing, .refreshVerified): .moves(to: [.active])
        case (.guestSession, .refreshing, .refreshRetryScheduled): .moves(to: [.refreshing])
        case (.guestSession, .refreshing, .refreshRejected): .moves(to: [.signedOut])
        case (.guestSession, .refreshing, .signIn), (.guestSession, .refreshing, .deviceSignIn): .misuse(.signInInProgress)
        case (.guestSession, .refreshing, .startGuestSession): .moves(to: [.refreshing])
        case (.guestSession, .revoking, .guestSessionEnded), (.guestSession, .disconnecting, .guestSessionEnded):
            .moves(to: [.signedOut, .active])
        case (.guestSession, .revoking, .serverConfirmed), (.guestSession, .revoking, .serverFailedTransiently),
            (.guestSession, .revoking, .serverRefused), (.guestSession, .revoking, .storeFailed),
            (.guestSession, .disconnecting, .serverConfirmed), (.guestSession, .disconnecting, .serverFailedTransiently),
            (.guestSession, .disconnecting, .serverRefused), (.guestSession, .disconnecting, .storeFailed):
            .ignored("a guest session's end asks the provider nothing")

        case (.signingInFromGuest, .handoff, .callback): .moves(to: [.verifying, .active, .handoff])
        case (.signingInFromGuest, .handoff, .presenterEnded), (.signingInFromGuest, .handoff, .handoffTimeout): .moves(to: [.active])
        case (.signingInFromGuest, .handoff, .callerCancelled): .moves(to: [.handoff, .active])
        case (.signingInFromGuest, .handoff, .tokenRequested), (.signingInFromGuest, .verifying, .tokenRequested): .moves(to: [stage])
        case (.signingInFromGuest, .handoff, .refreshRequested), (.signingInFromGuest, .verifying, .refreshRequested):
            .misuse(.signInInProgress)
        case (.signingInFromGuest, .handoff, .signOut), (.signingInFromGuest, .verifying, .signOut): .moves(to: [.revoking])
        case (.signingInFromGuest, .verifying, .exchangeFailed): .moves(to: [.active])
        case (.signingInFromGuest, .handoff, .deviceCodeIssued): .moves(to: [.handoff, .active])
        case (.signingInFromGuest, .handoff, .devicePollAnswered): .moves(to: [.handoff, .verifying, .active])

        default: nil
        }
    }

    /// The pairs where a guest session changes the outcome, with that outcome.
    package static var guestRules: [(guest: GuestContext, stage: SessionStage, event: SessionInput, outcome: TransitionOutcome)] {
        GuestContext.allCases.flatMap { guest in
            SessionStage.allCases.flatMap { stage in
                SessionInput.allCases.compactMap { event in
                    guestOutcome(of: event, in: stage, guest: guest).map { (guest, stage, event, $0) }
                }
            }
        }
    }

    /// Every pair, stage by stage, in declaration order.
    package static var rules: [(stage: SessionStage, event: SessionInput, outcome: TransitionOutcome)] {
        SessionStage.allCases.flatMap { stage in
            SessionInput.allCases.map { event in (stage, event, outcome(of: event, in: stage)) }
        }
    }

    /// The stage diagram as Mermaid source: one edge per (stage, event, target), self-loops included.
    package static func mermaid() -> String {
        var lines = ["%% Generated from SessionTransitionTable. Do not edit; run `swift run walkthrough --diagram`.", "stateDiagram-v2"]
        lines.append("    [*] --> signedOut")
        var edges: [String: [String]] = [:]
        var order: [String] = []
        let all = rules + guestRules.map { ($0.stage, $0.event, $0.outcome) }
        for rule in all {
            guard case .moves(let targets) = rule.outcome else { continue }
            for target in targets {
                let key = "\(rule.stage.rawValue) --> \(target.rawValue)"
                if edges[key] == nil { order.append(key) }
                edges[key, default: []].append(rule.event.rawValue)
            }
        }
        for key in order {
            lines.append("    \(key) : \(edges[key]!.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
