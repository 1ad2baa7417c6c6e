/// What reading the high-assurance token gave.
@nonexhaustive
public enum HighAssuranceRead: Sendable, Hashable, CustomStringConvertible {
    /// Why a new step-up sign-in is needed before the action.
    @nonexhaustive
    public enum StepUpReason: String, Sendable, Hashable {
        /// Nothing is kept (never kept, or removed at sign-out or deletion).
        case nothingKept
        /// The kept token expired; it was removed without asking the person.
        case expired
        /// The enrolled biometrics changed since the token was kept, which invalidates it; the
        /// remains were removed.
        case biometricsChanged
        /// The kept token belongs to another account than the one asked for; it was removed.
        case anotherAccount
    }

    /// The person confirmed: the token, for the action about to run.
    case token(HighAssuranceToken)
    /// No usable token: sign in again with the step-up options, then keep the new result.
    case stepUpRequired(StepUpReason)
    /// The person cancelled or did not confirm; the token stays kept.
    case notConfirmed
    /// The app is in the background: the token is never read for background work, and nobody was asked.
    case refusedInBackground
    /// There is no biometric gate here, with the reason.
    case unavailable(String)

    /// A short phrase, never the token.
    public var description: String {
        switch self {
        case .token(let token): "confirmed: \(token)"
        case .stepUpRequired(let reason): "step-up required (\(reason.rawValue))"
        case .notConfirmed: "not confirmed"
        case .refusedInBackground: "refused in the background"
        case .unavailable(let reason): "unavailable: \(reason)"
        }
    }
}
