#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Validates OpenID Connect ID tokens (OIDC Core §3.1.3.7, §12.2) signed with RS256 or ES256.
///
/// A pure function of (token, keys, expectations, now): no clock, no I/O. Checks run in one
/// fixed order so every platform reports the same code for the same token:
/// `alg` among ``IDTokenExpectations/algorithms`` → `kid` present and known for that `alg` → signature → `iss` → `aud` → `azp` → `exp` →
/// `iat` / `nbf` → `nonce` → `auth_time` (with `max_age`) → `acr` (with essential values) →
/// `sub` → `at_hash`. The signature is checked before the claims are even parsed, so
/// unauthenticated JSON never reaches the claim logic.
///
/// The request checks (`max_age`, essential `acr`, OIDC Core §3.1.2.1, §3.1.3.7, §5.5.1.1) apply
/// to a sign-in only: a refreshed token keeps the original `auth_time` (§12.2), which ages past
/// `max_age` by design.
public enum IDTokenValidator {
    /// Validates an ID token from a sign-in (authorization-code exchange).
    public static func validate(
        _ token: String, keys: JWKS, expecting: IDTokenExpectations, now: Date
    ) throws(IDTokenError) -> VerifiedIDToken {
        try validate(token, keys: keys, expecting: expecting, previous: nil, now: now)
    }

    /// Validates an ID token from a refresh (OIDC Core §12.2): the sign-in checks, plus the same
    /// `iss`, `sub` (else ``IDTokenError/subjectMismatch``) and `aud` (else
    /// ``IDTokenError/audienceMismatch``) as `previous`. A nonce is not required; one present
    /// is compared when `expecting.nonce` is set.
    public static func validateRefreshed(
        _ token: String, keys: JWKS, expecting: IDTokenExpectations, previous: IDTokenClaims, now: Date
    ) throws(IDTokenError) -> VerifiedIDToken {
        try validate(token, keys: keys, expecting: expecting, previous: previous, now: now)
    }

    private static func validate(
        _ token: String, keys: JWKS, expecting: IDTokenExpectations, previous: IDTokenClaims?, now: Date
    ) throws(IDTokenError) -> VerifiedIDToken {
        let jws = try CompactJWS.verifiedHeaderAndPayload(
            token, keys: keys, algorithms: expecting.algorithms, allowMissingKeyID: expecting.allowMissingKeyID)
        let claims: RawIDTokenClaims
        do {
            claims = try RawIDTokenClaims(json: jws.payload)
        } catch {
            throw .malformed
        }
        let verified = try check(claims, expecting: expecting, previous: previous, now: now)
        return VerifiedIDToken(claims: verified, keyID: jws.header.keyID)
    }

    static func check(
        _ claims: RawIDTokenClaims, expecting: IDTokenExpectations, previous: IDTokenClaims?, now: Date
    ) throws(IDTokenError) -> IDTokenClaims {
        let skew = expecting.skew.isFinite ? max(0, expecting.skew) : 0
        let nowSeconds = now.timeIntervalSince1970

        guard let issuer = claims.issuer, issuer == expecting.issuer else { throw .issuerMismatch }
        if let previous, previous.issuer != issuer { throw .issuerMismatch }

        guard let audience = claims.audience, audience.contains(expecting.clientID) else {
            throw .audienceMismatch
        }
        if audience.count > 1, claims.authorizedParty == nil { throw .audienceMismatch }
        if let authorizedParty = claims.authorizedParty, authorizedParty != expecting.clientID {
            throw .audienceMismatch
        }
        if let previous, Set(previous.audience) != Set(audience) { throw .audienceMismatch }

        guard let expiry = claims.expiry else { throw .missingClaim }
        guard nowSeconds < expiry + skew else { throw .expired }

        guard let issuedAt = claims.issuedAt, issuedAt <= nowSeconds + skew else { throw .malformed }
        if let notBefore = claims.notBefore, notBefore > nowSeconds + skew { throw .malformed }

        if let expectedNonce = expecting.nonce {
            if previous == nil {
                guard claims.nonce == expectedNonce else { throw .nonceMismatch }
            } else if let nonce = claims.nonce, nonce != expectedNonce {
                throw .nonceMismatch
            }
        }

        if previous == nil, let maxAge = expecting.maxAge {
            guard let authTime = claims.authTime else { throw .missingAuthTime }
            // A negative or NaN max_age asks for a fresh authentication, like max_age=0.
            let allowed = maxAge >= 0 ? maxAge : 0
            guard nowSeconds <= authTime + allowed + skew else { throw .authTimeTooOld }
        }
        if previous == nil, !expecting.requiredACRValues.isEmpty {
            guard let acr = claims.acr, expecting.requiredACRValues.contains(acr) else { throw .acrMismatch }
        }

        guard let subject = claims.subject, !subject.isEmpty else { throw .missingClaim }
        if let canonicalSubject = claims.canonicalSubject, canonicalSubject.isEmpty { throw .missingClaim }
        if let previous, previous.subject != subject { throw .subjectMismatch }

        if let accessTokenHash = claims.accessTokenHash, let accessToken = expecting.accessToken {
            guard AccessTokenHash.matches(accessTokenHash, accessToken: accessToken) else {
                throw .accessTokenHashMismatch
            }
        }

        return IDTokenClaims(
            issuer: issuer, subject: subject, audience: audience, authorizedParty: claims.authorizedParty,
            expiresAt: Date(timeIntervalSince1970: expiry), issuedAt: Date(timeIntervalSince1970: issuedAt),
            notBefore: claims.notBefore.map { Date(timeIntervalSince1970: $0) }, nonce: claims.nonce,
            accessTokenHash: claims.accessTokenHash, canonicalSubject: claims.canonicalSubject,
            isCanonical: claims.isCanonical, linkedSubjects: claims.linkedSubjects,
            previouslyAnonymous: claims.previouslyAnonymous, anonymous: claims.anonymous, profile: claims.profile,
            authenticationTime: claims.authTime.map { Date(timeIntervalSince1970: $0) },
            authenticationContextClass: claims.acr, authenticationMethods: claims.amr,
            additionalClaims: claims.additional)
    }
}
