/// A call the current stage does not allow, as the transition table names it.
package enum SessionMisuse: String, Sendable, Hashable, CaseIterable {
    /// `signIn()` while a sign-in waits for the provider.
    case signInInProgress
    /// `signIn()` while a session is active.
    case alreadySignedIn
    /// A token or a deletion asked for with no session.
    case notSignedIn
    /// A token or a deletion asked for while sign-out waits for the provider.
    case signOutInProgress
    /// A token, a sign-in or a sign-out asked for while deletion waits for the provider.
    case accountDeletionInProgress

    /// The error the caller is given.
    package var error: SessionError {
        switch self {
        case .signInInProgress: .signInInProgress
        case .alreadySignedIn: .alreadySignedIn
        case .notSignedIn: .notSignedIn
        case .signOutInProgress: .signOutInProgress
        case .accountDeletionInProgress: .accountDeletionInProgress
        }
    }
}
