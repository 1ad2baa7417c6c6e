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
    /// A guest session's key (renewed by bootstrapping again).
    var isGuest = false
    /// Whether the account is anonymous (a guest's always is).
    var isAnonymous = false
    /// The `previously_anonymous` claim of a sign-in's id_token.
    var wasPreviouslyAnonymous = false
}
