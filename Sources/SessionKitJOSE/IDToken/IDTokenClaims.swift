#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The claims of a verified ID token: the ones SessionKit acts on, the provider's account-identity
/// extensions (`canonical_sub`, `linked_subs`, …), the standard claims about the person
/// (``profile``, `auth_time`, `acr`, `amr`), and every other claim the token carried
/// (``additionalClaims``, read with ``custom(_:as:)``).
///
/// Only ``IDTokenValidator`` fills one from a token, after the signature verified, so nothing here
/// comes from unauthenticated JSON. `Codable` as the flat claims object (claim names as keys,
/// additional claims beside the others), so a session can persist the previous token's claims and
/// check a refreshed token against them after a relaunch.
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
    /// The standard claims about the person (`name`, `email`, `email_verified`, …, OIDC Core §5.1).
    public var profile: ProfileClaims
    /// `auth_time`: when the person last actively authenticated (required when `max_age` was sent).
    public var authenticationTime: Date?
    /// `acr`: the authentication context class the authentication satisfied.
    public var authenticationContextClass: String?
    /// `amr`: identifiers of the authentication methods used (RFC 8176 values such as `pwd`, `mfa`).
    public var authenticationMethods: [String]?
    /// Every claim of the token that no member above reads, by name, as the token carried it.
    public var additionalClaims: [String: ClaimValue]

    /// The subject to key the user's data by: `canonical_sub` when present, else `sub`.
    public var effectiveSubject: String { canonicalSubject ?? subject }

    /// Claims from their values, for tests and for restoring persisted state.
    public init(
        issuer: String, subject: String, audience: [String], authorizedParty: String? = nil, expiresAt: Date,
        issuedAt: Date, notBefore: Date? = nil, nonce: String? = nil, accessTokenHash: String? = nil,
        canonicalSubject: String? = nil, isCanonical: Bool? = nil, linkedSubjects: [String] = [],
        previouslyAnonymous: Bool? = nil, anonymous: Bool? = nil, profile: ProfileClaims = ProfileClaims(),
        authenticationTime: Date? = nil, authenticationContextClass: String? = nil, authenticationMethods: [String]? = nil,
        additionalClaims: [String: ClaimValue] = [:]
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
        self.profile = profile
        self.authenticationTime = authenticationTime
        self.authenticationContextClass = authenticationContextClass
        self.authenticationMethods = authenticationMethods
        self.additionalClaims = additionalClaims
    }

    /// A claim the library does not read itself, decoded as `type`; `nil` when the token did not
    /// carry it. For example `try claims.custom("tenant", as: String.self)`.
    ///
    /// - Throws: ``ClaimError/typeMismatch(claim:)`` when the claim has another shape.
    public func custom<T: Decodable>(_ name: String, as type: T.Type = T.self) throws(ClaimError) -> T? {
        guard let value = additionalClaims[name] else { return nil }
        return try value.decode(as: type, claim: name)
    }

    /// The claim names the typed members read; every other name is an additional claim.
    static let typedNames: Set<String> = ProfileClaims.names.union([
        "iss", "sub", "aud", "azp", "exp", "iat", "nbf", "nonce", "at_hash", "canonical_sub", "is_canonical",
        "linked_subs", "previously_anonymous", "anonymous", "auth_time", "acr", "amr",
    ])

    /// Decodes the flat claims object ``encode(to:)`` writes (and the one earlier versions wrote).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClaimName.self)
        func optional<T: Decodable>(_ name: String, _ type: T.Type = T.self) throws -> T? {
            try container.decodeIfPresent(type, forKey: ClaimName(name))
        }
        func required<T: Decodable>(_ name: String, _ type: T.Type = T.self) throws -> T {
            try container.decode(type, forKey: ClaimName(name))
        }
        var additional: [String: ClaimValue] = [:]
        for key in container.allKeys where !Self.typedNames.contains(key.stringValue) {
            additional[key.stringValue] = try container.decode(ClaimValue.self, forKey: key)
        }
        self.init(
            issuer: try required("iss"), subject: try required("sub"), audience: try required("aud"),
            authorizedParty: try optional("azp"), expiresAt: try required("exp"), issuedAt: try required("iat"),
            notBefore: try optional("nbf"), nonce: try optional("nonce"), accessTokenHash: try optional("at_hash"),
            canonicalSubject: try optional("canonical_sub"), isCanonical: try optional("is_canonical"),
            linkedSubjects: try required("linked_subs"), previouslyAnonymous: try optional("previously_anonymous"),
            anonymous: try optional("anonymous"), profile: try ProfileClaims(from: container),
            authenticationTime: try optional("auth_time"), authenticationContextClass: try optional("acr"),
            authenticationMethods: try optional("amr"), additionalClaims: additional)
    }

    /// Encodes the claims as one flat object under their claim names.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimName.self)
        try container.encode(issuer, forKey: ClaimName("iss"))
        try container.encode(subject, forKey: ClaimName("sub"))
        try container.encode(audience, forKey: ClaimName("aud"))
        try container.encodeIfPresent(authorizedParty, forKey: ClaimName("azp"))
        try container.encode(expiresAt, forKey: ClaimName("exp"))
        try container.encode(issuedAt, forKey: ClaimName("iat"))
        try container.encodeIfPresent(notBefore, forKey: ClaimName("nbf"))
        try container.encodeIfPresent(nonce, forKey: ClaimName("nonce"))
        try container.encodeIfPresent(accessTokenHash, forKey: ClaimName("at_hash"))
        try container.encodeIfPresent(canonicalSubject, forKey: ClaimName("canonical_sub"))
        try container.encodeIfPresent(isCanonical, forKey: ClaimName("is_canonical"))
        try container.encode(linkedSubjects, forKey: ClaimName("linked_subs"))
        try container.encodeIfPresent(previouslyAnonymous, forKey: ClaimName("previously_anonymous"))
        try container.encodeIfPresent(anonymous, forKey: ClaimName("anonymous"))
        try profile.encode(to: &container)
        try container.encodeIfPresent(authenticationTime, forKey: ClaimName("auth_time"))
        try container.encodeIfPresent(authenticationContextClass, forKey: ClaimName("acr"))
        try container.encodeIfPresent(authenticationMethods, forKey: ClaimName("amr"))
        for (name, value) in additionalClaims where !Self.typedNames.contains(name) {
            try container.encode(value, forKey: ClaimName(name))
        }
    }
}
