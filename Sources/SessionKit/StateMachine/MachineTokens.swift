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
    /// Whether a refresh token came with the set; without one the session ends when the access
    /// token expires, and asks for sign-in.
    var canRefresh: Bool { get }
    /// Whether a verified id_token vouches for the identity (not a UserInfo answer, see
    /// `SessionConfiguration.requireIDTokenForDeviceSignIn`).
    var isVerifiedByIDToken: Bool { get }
    /// Whether a refresh that produced this set brought a new, verified id_token; `false` when the
    /// provider sent none and the identity was kept from the session before.
    var carriesNewIDToken: Bool { get }
    /// Whether this is a guest session's key: issued by a device bootstrap, renewed by
    /// bootstrapping again with the stored device secret (``canRefresh`` is `true` for it).
    var isGuest: Bool { get }
    /// Whether the id_token says the user was anonymous before this sign-in (`previously_anonymous`).
    var wasPreviouslyAnonymous: Bool { get }
}

extension MachineTokens {
    /// No merged subjects unless the token set says so.
    var linkedSubjects: [String] { [] }
    /// Not anonymous unless the token set says so.
    var isAnonymous: Bool { false }
    /// Refreshable unless the token set says otherwise.
    var canRefresh: Bool { true }
    /// An id_token vouches unless the token set says otherwise.
    var isVerifiedByIDToken: Bool { true }
    /// A new id_token came unless the token set says otherwise.
    var carriesNewIDToken: Bool { true }
    /// Not a guest's key unless the token set says so.
    var isGuest: Bool { false }
    /// Not previously anonymous unless the token set says so.
    var wasPreviouslyAnonymous: Bool { false }
}
