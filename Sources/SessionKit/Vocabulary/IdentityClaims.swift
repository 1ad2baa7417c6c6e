public import Foundation
public import SessionKitJOSE

/// What the verified id_token says about the person beyond who they are: the standard claims
/// (OpenID Connect Core §5.1), how and when they authenticated, and every other claim by name.
///
/// Filled only from a verified id_token (or, for a device sign-in at a provider that issues no
/// id_token and only when the configuration allows it, from the UserInfo answer that named the
/// person), replaced whenever a refresh brings a new verified id_token, and kept durably with the
/// session so a restore has it. Never merged with an unverified source.
///
/// ```swift
/// let email = identity.claims.profile.email
/// let tenant = try identity.claims.custom("tenant", as: String.self)
/// ```
public struct IdentityClaims: Sendable, Hashable, Codable {
    /// `name`, `given_name`, `family_name`, `preferred_username`, `email`, `email_verified`,
    /// `picture`, `locale`, `updated_at`.
    public var profile: ProfileClaims
    /// `auth_time`: when the person last actively authenticated. A refreshed id_token carries the
    /// original sign-in's.
    public var authenticationTime: Date?
    /// `acr`: the authentication context class the authentication satisfied.
    public var authenticationContextClass: String?
    /// `amr`: how the person authenticated (RFC 8176 values such as `pwd`, `mfa`); empty when absent.
    public var authenticationMethods: [String]
    /// Every other claim, by name, as the token carried it.
    public var additionalClaims: [String: ClaimValue]

    /// Claims from their values, for tests; every one is absent unless given.
    public init(
        profile: ProfileClaims = ProfileClaims(), authenticationTime: Date? = nil, authenticationContextClass: String? = nil,
        authenticationMethods: [String] = [], additionalClaims: [String: ClaimValue] = [:]
    ) {
        self.profile = profile
        self.authenticationTime = authenticationTime
        self.authenticationContextClass = authenticationContextClass
        self.authenticationMethods = authenticationMethods
        self.additionalClaims = additionalClaims
    }

    /// The claims of a verified id_token.
    init(_ claims: IDTokenClaims) {
        self.init(
            profile: claims.profile, authenticationTime: claims.authenticationTime,
            authenticationContextClass: claims.authenticationContextClass, authenticationMethods: claims.authenticationMethods ?? [],
            additionalClaims: claims.additionalClaims)
    }

    /// The claims of the UserInfo answer that named the person (no id_token to take them from).
    init(_ userInfo: UserInfo) {
        self.init(profile: userInfo.profile, additionalClaims: userInfo.additionalClaims)
    }

    /// A claim the library does not read itself, decoded as `type`; `nil` when absent. For example
    /// `try identity.claims.custom("roles", as: [String].self)`.
    ///
    /// - Throws: `ClaimError.typeMismatch(claim:)` when the claim has another shape.
    public func custom<T: Decodable>(_ name: String, as type: T.Type = T.self) throws(ClaimError) -> T? {
        guard let value = additionalClaims[name] else { return nil }
        return try value.decode(as: type, claim: name)
    }
}
