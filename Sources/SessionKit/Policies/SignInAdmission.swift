/// The three ways a session is started from the app: a browser sign-in, a device-code sign-in and a
/// guest session.
enum SignInKind: Sendable, Equatable {
    case browser
    case device
    case guest
}

/// Who may start a sign-in, and what becomes of the session already there: the one rule for every
/// ``SignInKind``, decided from the machine's state alone.
///
/// | state | browser, device | guest |
/// |---|---|---|
/// | `signedOut` | start | start |
/// | `revoking` | the revocation goes to the background queue, then start | `signOutInProgress` |
/// | `active` guest | start, the guest kept until the sign-in is verified | the guest's tokens |
/// | `refreshing` a guest's key | `signInInProgress` | the guest's tokens |
/// | `verifying` a guest's first key | `signInInProgress` | join the bootstrap |
/// | `handoff`, `verifying` | `signInInProgress` | `signInInProgress` |
/// | `active`, `refreshing` | `alreadySignedIn` | `alreadySignedIn` |
/// | `disconnecting` | `accountDeletionInProgress` | `accountDeletionInProgress` |
/// | `modifying`, `stopped` | out of service | out of service |
enum SignInAdmission<Tokens: MachineTokens, Waiter> {
    /// Start the sign-in from `from`. `guest` is the guest session it starts over (kept in the
    /// stages' payloads until the sign-in is verified); `leaving` is a sign-out still waiting for
    /// the provider, which the new sign-in sends to the background first.
    case start(from: SessionStage, guest: Tokens?, leaving: SessionStateMachine<Tokens, Waiter>.ServerOperation?)
    /// Join the guest bootstrap under way: one request for every caller.
    case joinGuestBootstrap
    /// Answer the caller at once; the state is unchanged.
    case answer(WaiterResult<Tokens>)
    /// The machine is stopped (or re-entered): answered as every input is.
    case outOfService

    /// The rule, for `kind` in `state`.
    init(_ kind: SignInKind, in state: SessionStateMachine<Tokens, Waiter>.State) {
        switch state {
        case .signedOut:
            self = .start(from: .signedOut, guest: nil, leaving: nil)
        case .revoking(let operation):
            // A pending revocation must not hold the person hostage; a guest session is not a
            // sign-in the person asked for, so it waits for the sign-out instead.
            self = kind == .guest ? .answer(.failed(.signOutInProgress)) : .start(from: .signedOut, guest: nil, leaving: operation)
        case .active(let active) where active.tokens.isGuest:
            self = kind == .guest ? .answer(.tokens(active.tokens)) : .start(from: .active, guest: active.tokens, leaving: nil)
        case .refreshing(let refreshing) where refreshing.previous?.isGuest == true:
            // The guest's key is being renewed: the key held is the guest session asked for, and a
            // sign-in may start once it is active again.
            let held = refreshing.previous.map { WaiterResult<Tokens>.tokens($0) } ?? .failed(.notSignedIn)
            self = kind == .guest ? .answer(held) : .answer(.failed(.signInInProgress))
        case .verifying(let verifying) where verifying.bootstrapsGuest:
            self = kind == .guest ? .joinGuestBootstrap : .answer(.failed(.signInInProgress))
        case .handoff, .verifying:
            self = .answer(.failed(.signInInProgress))
        case .active, .refreshing:
            self = .answer(.failed(.alreadySignedIn))
        case .disconnecting:
            self = .answer(.failed(.accountDeletionInProgress))
        case .modifying, .stopped:
            self = .outOfService
        }
    }
}
