/// How the person answers the next device sign-in (RFC 8628) at a ``SimulatedProvider``.
///
/// The provider takes one script per device authorization request, in the order they were
/// scripted. Without one, the request stays pending until
/// ``SimulatedProvider/decideDeviceAuthorization(userCode:subject:decision:)`` decides it.
public struct SimulatedProviderDeviceScript: Sendable, Equatable {
    /// Who signs in.
    public var subject: String
    /// The poll (counting from 1) that finds the decision made; earlier polls get
    /// `authorization_pending`.
    public var decidedAtPoll: Int
    /// Approve or deny.
    public var decision: SimulatedProviderDecision
    /// Polls (counting from 1) answered `slow_down`, whatever their timing; each adds 5 s to the interval.
    public var slowDownAtPolls: Set<Int>

    /// A script: `subject` decides at poll `decidedAtPoll`, after `slow_down` at `slowDownAtPolls`.
    public init(
        subject: String, decidedAtPoll: Int = 1, decision: SimulatedProviderDecision = .approve, slowDownAtPolls: Set<Int> = []
    ) {
        self.subject = subject
        self.decidedAtPoll = decidedAtPoll
        self.decision = decision
        self.slowDownAtPolls = slowDownAtPolls
    }
}
