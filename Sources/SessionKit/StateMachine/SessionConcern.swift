/// The part of a session's life a transition belongs to: each has a stage diagram of its own.
///
/// Every (stage, input) pair of `SessionTransitionTable` has exactly one concern, given by
/// ``of(_:in:)``. The switch over the inputs has no `default`, so a new input does not compile
/// until it is given a concern; a new row for an existing input gets its concern from the input.
package enum SessionConcern: String, Sendable, Hashable, CaseIterable {
    /// From `signedOut` through the handoff (browser or device code) and the code exchange.
    case signIn = "sign-in"
    /// Handing out tokens and refreshing them.
    case refresh
    /// Sign-out and account deletion, until the local wipe.
    case ending
    /// A launch loading the store.
    case restore
    /// A guest session: its bootstrap, its renewal, its sign-in and its local end.
    case guest

    /// The concern of `input` in `stage`.
    ///
    /// An input that several stages share (a presenter ending, a timer, a caller's cancellation)
    /// belongs to the concern of the stage it arrives in.
    package static func of(_ input: SessionInput, in stage: SessionStage) -> SessionConcern {
        switch input {
        case .signIn, .callback, .exchangeVerified, .exchangeFailed, .deviceSignIn, .deviceCodeIssued, .devicePollTimerFired,
            .devicePollAnswered:
            .signIn
        case .tokenRequested, .refreshRequested, .refreshVerified, .refreshRetryScheduled, .refreshGaveUp, .refreshRejected:
            .refresh
        case .signOut, .deleteAccount, .serverConfirmed, .serverFailedTransiently, .serverRefused, .storeFailed, .notJournaled,
            .endSessionReturn:
            .ending
        case .restoreLoaded:
            .restore
        case .startGuestSession, .guestBootstrapped, .guestBootstrapFailed, .guestSessionEnded:
            .guest
        case .presenterEnded, .handoffTimeout, .retryTimerFired, .callerCancelled:
            of(stage)
        }
    }

    /// The concern a stage belongs to.
    package static func of(_ stage: SessionStage) -> SessionConcern {
        switch stage {
        case .signedOut, .handoff, .verifying: .signIn
        case .active, .refreshing: .refresh
        case .revoking, .disconnecting: .ending
        }
    }

    /// The concern's title, as in the documentation.
    package var title: String {
        switch self {
        case .signIn: "Signing in"
        case .refresh: "Keeping the session fresh"
        case .ending: "Ending it"
        case .restore: "Restoring at launch"
        case .guest: "Guest sessions"
        }
    }
}
