import Foundation
import SessionKitCore
import SessionKitJOSE

/// Tokens whose id_token passed every check. Only ``TokenVerifier`` can make one (the initializer
/// is `fileprivate`), so holding a value of this type proves verification happened (DESIGN
/// invariant 2): nothing else can be promoted to the active session, returned or emitted. A class,
/// so handing the current set out on the fast path costs one reference count, not one per field.
final class VerifiedTokens: ProcedureTokens, Sendable {
    let accessToken: Secret
    /// The access token as callers are handed it, made once.
    let token: AccessToken
    let accessTokenExpiresAt: Date
    /// `nil` when the provider issued none: the session then lasts as long as the access token.
    let refreshToken: Secret?
    let idToken: Secret?
    let identity: SessionIdentity
    /// The stored rotation counter this token set corresponds to.
    let rotation: UInt64
    /// `false` for a refresh whose answer carried no id_token (the identity was kept).
    let carriesNewIDToken: Bool
    /// The DPoP key the tokens are bound to, kept with them in the record.
    let dpopKey: StoredDPoPKey?

    var subject: String { identity.effectiveSubject }
    var linkedSubjects: [String] { identity.linkedSubjects }
    var isAnonymous: Bool { identity.isAnonymous }
    /// A guest's key is renewed by bootstrapping again, so it has a way to refresh too.
    var canRefresh: Bool { refreshToken != nil || isGuest }
    var isVerifiedByIDToken: Bool { identity.source == .idToken }
    var isGuest: Bool { identity.source == .deviceBootstrap }
    var wasPreviouslyAnonymous: Bool { identity.wasPreviouslyAnonymous }

    fileprivate init(
        accessToken: Secret, accessTokenExpiresAt: Date, refreshToken: Secret?, idToken: Secret?, identity: SessionIdentity,
        rotation: UInt64, carriesNewIDToken: Bool = true, dpopKey: StoredDPoPKey? = nil
    ) {
        self.dpopKey = dpopKey
        self.accessToken = accessToken
        self.token = AccessToken(secret: accessToken, expiresAt: accessTokenExpiresAt)
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.refreshToken = refreshToken
        self.idToken = idToken
        self.identity = identity
        self.rotation = rotation
        self.carriesNewIDToken = carriesNewIDToken
    }

    /// The record that makes this token set durable.
    func stored() -> StoredSession {
        StoredSession(
            refreshToken: refreshToken, accessToken: accessToken, accessTokenExpiresAt: accessTokenExpiresAt, idToken: idToken,
            issuer: identity.issuer, subject: identity.subject, audience: identity.audience, rotation: rotation,
            canonicalSubject: identity.effectiveSubject == identity.subject ? nil : identity.effectiveSubject,
            linkedSubjects: identity.linkedSubjects.isEmpty ? nil : identity.linkedSubjects, isAnonymous: identity.isAnonymous ? true : nil,
            claims: identity.claims, identityFromUserInfo: identity.source == .userInfo ? true : nil,
            isGuest: identity.source == .deviceBootstrap ? true : nil, dpopKey: dpopKey)
    }

    /// The same tokens, bound to `key` (a sign-in's new DPoP key).
    func binding(_ key: StoredDPoPKey?) -> VerifiedTokens {
        VerifiedTokens(
            accessToken: accessToken, accessTokenExpiresAt: accessTokenExpiresAt, refreshToken: refreshToken, idToken: idToken,
            identity: identity, rotation: rotation, carriesNewIDToken: carriesNewIDToken, dpopKey: key)
    }
}

/// Turns a token response into ``VerifiedTokens`` or a typed rejection.
///
/// The id_token is checked in DESIGN.md's order by SessionKitJOSE; on `unknown_kid` the signing
/// keys are fetched once more (rate-limited) before the token is rejected. A refreshed id_token
/// must also name the same `iss`, `sub` and `aud` as the session's (OIDC Core §12.2).
struct TokenVerifier: Sendable {
    let configuration: ProviderConfiguration
    let keys: JWKSCache
    let skew: Double
    let allowMissingKeyID: Bool
    let requireIDTokenOnRefresh: Bool
    let defaultAccessTokenLifetime: TimeInterval
    /// The provider's clock: id_token times (`iat`, `exp`, `nbf`, `auth_time`) are the provider's,
    /// so they are judged on its clock as its token responses tell it.
    var serverClock = ServerClock()

    /// Verifies a sign-in's token response against the nonce sent in the authorization request
    /// (none for a device sign-in) and the checks the request's options ask for (`max_age`,
    /// essential `acr`). A response without a refresh token gives a session that lasts as long as
    /// its access token.
    func verifySignIn(
        _ response: TokenResponse, nonce: String?, options: AuthorizationRequestOptions = .empty, now: Date
    ) async throws(SessionError) -> VerifiedTokens {
        guard let idToken = response.idToken else { throw .verificationFailed(.malformed) }
        let verified: VerifiedIDToken
        do throws(RefreshVerificationError) {
            verified = try await validate(idToken, nonce: nonce, accessToken: response.accessToken, now: now, requiring: options)
        } catch {
            switch error {
            case .rejected(let failure): throw .verificationFailed(failure)
            case .keysUnavailable(let error): throw .provider(error)
            }
        }
        return VerifiedTokens(
            accessToken: response.accessToken, accessTokenExpiresAt: expiry(of: response, now: now), refreshToken: response.refreshToken,
            idToken: idToken, identity: SessionIdentity(claims: verified.claims), rotation: 0)
    }

    /// Accepts a device sign-in's token response that carried no id_token, with the identity the
    /// UserInfo answer to its access token named. Only for a token response that came straight
    /// from the token endpoint (no front channel could have injected it) and only when the
    /// configuration allows it.
    func acceptDeviceSignIn(_ response: TokenResponse, identifiedBy userInfo: UserInfo, now: Date) -> VerifiedTokens {
        VerifiedTokens(
            accessToken: response.accessToken, accessTokenExpiresAt: expiry(of: response, now: now), refreshToken: response.refreshToken,
            idToken: nil, identity: SessionIdentity(userInfo: userInfo, issuer: configuration.issuer, clientID: configuration.clientID),
            rotation: 0)
    }

    /// Verifies a refresh response against the session it refreshes.
    func verifyRefresh(_ response: TokenResponse, previous: StoredSession, now: Date) async throws(RefreshVerificationError)
        -> VerifiedTokens
    {
        var verified: VerifiedIDToken?
        if let token = response.idToken {
            verified = try await validate(token, nonce: nil, accessToken: response.accessToken, now: now)
        }
        return try refreshed(response, previous: previous, verified: verified, now: now)
    }

    /// Verifies a refresh response with the signing keys already cached, without any I/O; `nil`
    /// when they cannot decide (no fresh set, or a `kid` it lacks), so only a key fetch can.
    func verifyRefreshWithCachedKeys(
        _ response: TokenResponse, previous: StoredSession, now: Date
    ) async throws(RefreshVerificationError) -> VerifiedTokens? {
        var verified: VerifiedIDToken?
        if let token = response.idToken {
            guard let keys = keys.freshCachedKeys() else { return nil }
            do {
                verified = try IDTokenValidator.validate(
                    token.value, keys: keys, expecting: expectations(nonce: nil, accessToken: response.accessToken),
                    now: serverClock.serverTime(at: now))
            } catch .unknownKeyID {
                return nil
            } catch {
                throw .rejected(error)
            }
        }
        return try refreshed(response, previous: previous, verified: verified, now: now)
    }

    /// The refresh checks after the signature: same `iss`, `sub` and `aud` (OIDC Core §12.2).
    private func refreshed(
        _ response: TokenResponse, previous: StoredSession, verified: VerifiedIDToken?, now: Date
    ) throws(RefreshVerificationError) -> VerifiedTokens {
        let refreshToken = response.refreshToken ?? previous.refreshToken
        let identity: SessionIdentity
        let idToken: Secret?
        if let token = response.idToken, let verified {
            let claims = verified.claims
            guard claims.issuer == previous.issuer else { throw .rejected(.issuerMismatch) }
            guard claims.subject == previous.subject else { throw .rejected(.subjectMismatch) }
            guard Set(claims.audience) == Set(previous.audience) else { throw .rejected(.audienceMismatch) }
            identity = SessionIdentity(claims: claims)
            idToken = token
        } else if requireIDTokenOnRefresh {
            throw .rejected(.missingIDToken)
        } else {
            identity = SessionIdentity(stored: previous)
            idToken = previous.idToken
        }
        return VerifiedTokens(
            accessToken: response.accessToken, accessTokenExpiresAt: expiry(of: response, now: now), refreshToken: refreshToken,
            idToken: idToken, identity: identity, rotation: previous.rotation + 1, carriesNewIDToken: verified != nil,
            dpopKey: previous.dpopKey)
    }

    /// Adopts a token set another process stored after verifying it, when it still names the
    /// expected account. The store only ever receives verified tokens, so the check here is that the
    /// record is complete and belongs to the same `iss`, `sub` and `aud`.
    func adopt(_ stored: StoredSession, sameAccountAs previous: StoredSession?) -> VerifiedTokens? {
        guard let accessToken = stored.accessToken, let expiresAt = stored.accessTokenExpiresAt, stored.pendingRefreshToken == nil else {
            return nil
        }
        if let previous {
            guard stored.issuer == previous.issuer, stored.subject == previous.subject, Set(stored.audience) == Set(previous.audience)
            else {
                return nil
            }
        }
        return VerifiedTokens(
            accessToken: accessToken, accessTokenExpiresAt: expiresAt, refreshToken: stored.refreshToken, idToken: stored.idToken,
            identity: SessionIdentity(stored: stored), rotation: stored.rotation, dpopKey: stored.dpopKey)
    }

    /// A guest bootstrap's key, as the session holds it: the provider's answer is the only voucher
    /// (no id_token comes with it), and the key is renewed by bootstrapping again.
    func acceptGuest(_ guest: GuestTokens, rotation: UInt64) -> VerifiedTokens {
        VerifiedTokens(
            accessToken: guest.accessToken.secret, accessTokenExpiresAt: guest.accessToken.expiresAt, refreshToken: nil, idToken: nil,
            identity: SessionIdentity(guest: guest.user, issuer: configuration.issuer, clientID: configuration.clientID),
            rotation: rotation)
    }

    /// The tokens a stored session was verified as, for a cold launch that signs in from the store.
    /// The store only ever receives verified tokens; a pending rotated token is left in the store
    /// for the next refresh to present. `nil` when no access token was kept.
    func restored(_ stored: StoredSession) -> VerifiedTokens? {
        guard let accessToken = stored.accessToken, let expiresAt = stored.accessTokenExpiresAt else { return nil }
        return VerifiedTokens(
            accessToken: accessToken, accessTokenExpiresAt: expiresAt, refreshToken: stored.refreshToken, idToken: stored.idToken,
            identity: SessionIdentity(stored: stored), rotation: stored.rotation, dpopKey: stored.dpopKey)
    }

    private func expectations(nonce: String?, accessToken: Secret) -> IDTokenExpectations {
        IDTokenExpectations(
            issuer: configuration.issuer, clientID: configuration.clientID, nonce: nonce, accessToken: accessToken.value, skew: skew,
            allowMissingKeyID: allowMissingKeyID, algorithms: configuration.idTokenSigningAlgorithms)
    }

    private func validate(
        _ token: Secret, nonce: String?, accessToken: Secret, now: Date, requiring options: AuthorizationRequestOptions = .empty
    ) async throws(RefreshVerificationError) -> VerifiedIDToken {
        let expectations = expectations(nonce: nonce, accessToken: accessToken).requiring(options)
        let now = serverClock.serverTime(at: now)
        let current: (keys: JWKS, fromCache: Bool)
        do {
            current = try await keys.keys()
        } catch {
            throw .keysUnavailable(error)
        }
        do {
            return try IDTokenValidator.validate(token.value, keys: current.keys, expecting: expectations, now: now)
        } catch .unknownKeyID where current.fromCache {
            // The provider may have rotated its signing key since the set was cached.
            let refreshed: JWKS?
            do {
                refreshed = try await keys.refetch()
            } catch {
                throw .keysUnavailable(error)
            }
            // The set was fetched moments ago: a key rotated since cannot be fetched yet. Nothing was
            // judged, so this is transient (retried later), never a reason to end the session.
            guard let refreshed else { throw .keysUnavailable(.invalidResponse("signing key not yet published")) }
            do {
                return try IDTokenValidator.validate(token.value, keys: refreshed, expecting: expectations, now: now)
            } catch {
                throw .rejected(error)
            }
        } catch {
            throw .rejected(error)
        }
    }

    private func expiry(of response: TokenResponse, now: Date) -> Date {
        now.addingTimeInterval(response.expiresIn ?? defaultAccessTokenLifetime)
    }
}

/// Why a response could not be verified: a check failed, or the signing keys could not be had.
enum RefreshVerificationError: Error, Sendable {
    /// A check failed; the code is DESIGN.md's stable one.
    case rejected(IDTokenError)
    /// The signing keys could not be fetched; nothing was judged.
    case keysUnavailable(ProviderError)
}
