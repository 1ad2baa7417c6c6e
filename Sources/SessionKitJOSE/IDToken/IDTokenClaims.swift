#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The claims of an ID token that SessionKit acts on, including the provider's account-identity
/// extensions (`canonical_sub`, `linked_subs`, …).
///
/// `Codable` with the claim names as keys, so a session can persist the previous token's claims
/// and check a refreshed token against them after a relaunch.
public struct IDTokenClaims: Sendable, Equatable, Codable {
    /// `iss`: the issuer.
    public var issuer: String
    /// `sub`: the subject at this client.
    public var subject: String
    /// `aud`: the audiences (a single string in the token becomes one element).
    public var audience: [String]
    /// `azp`: the authorized party.
    public var authorizedParty: String?
    /// `exp`: expiry.
    public var expiresAt: Date
    /// `iat`: issue time.
    public var issuedAt: Date
    /// `nbf`: not valid before.
    public var notBefore: Date?
    /// `nonce`: the value bound to the authorization request.
    public var nonce: String?
    /// `at_hash`: the access-token hash.
    public var accessTokenHash: String?
    /// `canonical_sub`: the subject this account is known by after account linking.
    public var canonicalSubject: String?
    /// `is_canonical`: whether `sub` is itself the canonical subject.
    public var isCanonical: Bool?
    /// `linked_subs`: subjects absorbed into this account, whose data should be re-homed.
    public var linkedSubjects: [String]
    /// `previously_anonymous`: the user was anonymous before this sign-in promoted them.
    public var previouslyAnonymous: Bool?
    /// `anonymous`: the user is anonymous.
    public var anonymous: Bool?

    /// The subject to key the user's data by: `canonical_sub` when present, else `sub`.
    public var effectiveSubject: String { canonicalSubject ?? subject }

    /// Claims from their values, for tests and for restoring persisted state.
    public init(
        issuer: String, subject: String, audience: [String], authorizedParty: String? = nil, expiresAt: Date,
        issuedAt: Date, notBefore: Date? = nil, nonce: String? = nil, accessTokenHash: String? = nil,
        canonicalSubject: String? = nil, isCanonical: Bool? = nil, linkedSubjects: [String] = [],
        previouslyAnonymous: Bool? = nil, anonymous: Bool? = nil
    ) {
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.authorizedParty = authorizedParty
        self.expiresAt = expiresAt
        self.issuedAt = issuedAt
        self.notBefore = notBefore
        self.nonce = nonce
        self.accessTokenHash = accessTokenHash
        self.canonicalSubject = canonicalSubject
        self.isCanonical = isCanonical
        self.linkedSubjects = linkedSubjects
        self.previouslyAnonymous = previouslyAnonymous
        self.anonymous = anonymous
    }

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case authorizedParty = "azp"
        case expiresAt = "exp"
        case issuedAt = "iat"
        case notBefore = "nbf"
        case nonce
        case accessTokenHash = "at_hash"
        case canonicalSubject = "canonical_sub"
        case isCanonical = "is_canonical"
        case linkedSubjects = "linked_subs"
        case previouslyAnonymous = "previously_anonymous"
        case anonymous
    }
}
