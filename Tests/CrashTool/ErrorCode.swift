import SessionKit

extension SessionError {
    /// One word for the output line (`invalid_grant` for a rejected refresh token), then details
    /// that never carry a secret.
    var code: String {
        switch self {
        case .refreshTokenRejected: "invalid_grant"
        case .notSignedIn: "not_signed_in"
        case .signInInProgress: "sign_in_in_progress"
        case .alreadySignedIn: "already_signed_in"
        case .signOutInProgress: "sign_out_in_progress"
        case .accountDeletionInProgress: "account_deletion_in_progress"
        case .cancelled: "cancelled"
        case .handoffTimedOut: "handoff_timed_out"
        case .authorizationDenied: "authorization_denied"
        case .presentationFailed(let why): "presentation_failed \(why)"
        case .callbackRejected(let why): "callback_rejected \(why)"
        case .verificationFailed(let failure): "verification_failed \(failure)"
        case .provider(let error): "provider \(error.summary)"
        case .accountDeletionRefused(let status): "account_deletion_refused \(status)"
        case .storage(let error): "storage \(error)"
        case .unsupported(let why): "unsupported \(why)"
        }
    }
}
