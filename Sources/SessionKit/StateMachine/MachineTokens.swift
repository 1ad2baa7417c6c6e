import Foundation

/// What the machine needs to know about a verified token set.
protocol MachineTokens: Sendable {
    /// When the access token expires.
    var accessTokenExpiresAt: Date { get }
    /// The verified effective subject (`canonical_sub ?? sub`), for transition reasons and events.
    var subject: String { get }
    /// Subjects the provider merged into this one (`linked_subs`).
    var linkedSubjects: [String] { get }
    /// Whether the account is anonymous.
    var isAnonymous: Bool { get }
}

extension MachineTokens {
    /// No merged subjects unless the token set says so.
    var linkedSubjects: [String] { [] }
    /// Not anonymous unless the token set says so.
    var isAnonymous: Bool { false }
}
