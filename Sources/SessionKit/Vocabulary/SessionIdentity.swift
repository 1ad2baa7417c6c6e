import Foundation
import SessionKitCore
import SessionKitJOSE

/// Who is signed in, from the last verified id_token. Contains no secret.
public struct SessionIdentity: Sendable, Hashable {
    /// `iss`.
    public var issuer: String
    /// `sub`.
    public var subject: String
    /// `aud`.
    public var audience: [String]
    /// `canonical_sub ?? sub`: the account after any merge at the provider.
    public var effectiveSubject: String
    /// Subjects the provider merged into this one (`linked_subs`).
    public var linkedSubjects: [String]
    /// Whether the account is anonymous.
    public var isAnonymous: Bool
    /// `previously_anonymous`: the id_token says this account was a guest's before this sign-in
    /// (what makes a sign-in from a guest session a promotion).
    public var wasPreviouslyAnonymous: Bool
    /// The standard claims (`name`, `email`, …), `auth_time`, `acr`, `amr` and every custom claim
    /// of the last verified id_token; replaced when a refresh brings a new one.
    public var claims: IdentityClaims
    /// What vouches for this identity.
    public var source: Source

    /// What vouches for an identity.
    @nonexhaustive
    public enum Source: String, Sendable, Hashable {
        /// A verified id_token (signature and claim checks).
        case idToken
        /// The UserInfo answer to the access token of a device sign-in whose token response carried
        /// no id_token, accepted only when `SessionConfiguration.requireIDTokenForDeviceSignIn` is off.
        case userInfo
        /// A guest session's device bootstrap: the provider's answer names an anonymous user; there
        /// is no id_token.
        case deviceBootstrap
    }

    init(claims: IDTokenClaims) {
        self.issuer = claims.issuer
        self.subject = claims.subject
        self.audience = claims.audience
        self.effectiveSubject = claims.effectiveSubject
        self.linkedSubjects = claims.linkedSubjects
        self.isAnonymous = claims.anonymous ?? false
        self.wasPreviouslyAnonymous = claims.previouslyAnonymous ?? false
        self.claims = IdentityClaims(claims)
        self.source = .idToken
    }

    /// The identity a UserInfo answer names, for a sign-in that brought no id_token.
    init(userInfo: UserInfo, issuer: String, clientID: String) {
        self.issuer = issuer
        self.subject = userInfo.subject
        self.audience = [clientID]
        self.effectiveSubject = userInfo.subject
        self.linkedSubjects = []
        self.isAnonymous = false
        self.wasPreviouslyAnonymous = false
        self.claims = IdentityClaims(userInfo)
        self.source = .userInfo
    }

    init(stored: StoredSession) {
        self.issuer = stored.issuer
        self.subject = stored.subject
        self.audience = stored.audience
        self.effectiveSubject = stored.canonicalSubject ?? stored.subject
        self.linkedSubjects = stored.linkedSubjects ?? []
        self.isAnonymous = stored.isAnonymous ?? false
        self.wasPreviouslyAnonymous = false
        self.claims = stored.claims ?? IdentityClaims()
        self.source = stored.isGuest == true ? .deviceBootstrap : stored.identityFromUserInfo == true ? .userInfo : .idToken
    }

    /// The anonymous user a guest bootstrap answered with.
    init(guest user: AnonymousBootstrapResponse.User, issuer: String, clientID: String) {
        self.issuer = issuer
        self.subject = user.id
        self.audience = [clientID]
        self.effectiveSubject = user.id
        self.linkedSubjects = []
        self.isAnonymous = true
        self.wasPreviouslyAnonymous = false
        self.claims = IdentityClaims()
        self.source = .deviceBootstrap
    }
}
