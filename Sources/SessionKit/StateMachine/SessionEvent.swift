import Foundation

/// One change of stage, as published on `Session.events()`.
public struct SessionTransition: Sendable, Hashable {
    /// The stage left, or `nil` for the replayed current stage a new subscriber receives first.
    public var from: SessionStage?
    /// The stage entered.
    public var to: SessionStage
    /// Why.
    public var reason: TransitionReason
    /// The session's wall clock at the change (injected, so simulated in tests).
    public var date: Date

    /// Creates a transition record.
    public init(from: SessionStage?, to: SessionStage, reason: TransitionReason, date: Date) {
        self.from = from
        self.to = to
        self.reason = reason
        self.date = date
    }
}

/// Everything a session tells the app, in order.
public enum SessionEvent: Sendable, Hashable {
    /// The session changed stage.
    case transition(SessionTransition)
    /// The account was deleted at the provider: delete the app's own data for this subject.
    case deleteUserData(subject: String)
    /// The effective subject (`canonical_sub ?? sub`) changed: an account merge at the provider.
    case subjectChanged(from: String, to: String, absorbed: [String])
    /// An anonymous user was promoted to a full account.
    case anonymousUserPromoted(subject: String)
    /// A refresh token from an earlier session was revoked in the background.
    case deferredRevocationCompleted
}
