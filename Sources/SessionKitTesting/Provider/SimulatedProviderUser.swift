public import SessionKitJOSE

/// The claims a ``SimulatedProvider`` puts in id_tokens and UserInfo answers for one subject:
/// account identity, the standard claims about the person, and any other claim.
///
/// A subject that was never registered gets a plain id_token (`sub` only). The simulated
/// provider releases every registered claim whatever the scopes. Registering the same
/// subject again replaces its claims; the next id_token (for example after a refresh) carries them,
/// which is how a test shows an anonymous user being promoted or accounts being linked.
public struct SimulatedProviderUser: Sendable, Equatable {
    /// The `sub` claim.
    public var subject: String
    /// The `canonical_sub` claim, when the account was merged into another.
    public var canonicalSubject: String?
    /// The `is_canonical` claim.
    public var isCanonical: Bool?
    /// The `linked_subs` claim: subjects absorbed into this account.
    public var linkedSubjects: [String]?
    /// The `anonymous` claim.
    public var isAnonymous: Bool?
    /// The `previously_anonymous` claim.
    public var wasPreviouslyAnonymous: Bool?
    /// The `email` claim.
    public var email: String?
    /// The standard claims about the person (`name`, `given_name`, …); a non-nil
    /// `ProfileClaims.email` wins over ``email``.
    public var profile: ProfileClaims
    /// The `amr` claim: how the person authenticated.
    public var authenticationMethods: [String]?
    /// Any other claims, by name (`tenant`, `roles`, …), in id_tokens and UserInfo answers alike.
    public var additionalClaims: [String: ClaimValue]

    /// Creates a user; every claim but `sub` is left out unless given.
    public init(
        subject: String, canonicalSubject: String? = nil, isCanonical: Bool? = nil, linkedSubjects: [String]? = nil,
        isAnonymous: Bool? = nil, wasPreviouslyAnonymous: Bool? = nil, email: String? = nil,
        profile: ProfileClaims = ProfileClaims(), authenticationMethods: [String]? = nil,
        additionalClaims: [String: ClaimValue] = [:]
    ) {
        self.subject = subject
        self.canonicalSubject = canonicalSubject
        self.isCanonical = isCanonical
        self.linkedSubjects = linkedSubjects
        self.isAnonymous = isAnonymous
        self.wasPreviouslyAnonymous = wasPreviouslyAnonymous
        self.email = email
        self.profile = profile
        self.authenticationMethods = authenticationMethods
        self.additionalClaims = additionalClaims
    }
}
