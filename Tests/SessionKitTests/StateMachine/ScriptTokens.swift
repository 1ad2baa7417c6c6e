import Foundation

@testable import SessionKit

/// A verified token set as the state machine sees it, with a short name so a script line can say
/// `tokens(A)` instead of printing anything token-like.
struct ScriptTokens: MachineTokens, Equatable {
    var name: String
    var accessTokenExpiresAt: Date
    var subject: String
    /// `false` for a session the provider issued no refresh token for.
    var canRefresh = true
}
