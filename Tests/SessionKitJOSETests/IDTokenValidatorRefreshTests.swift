import Foundation
import SessionKitJOSE
import Testing

/// Refresh validation (OIDC Core §12.2): same `iss`, `sub`, `aud` as the token being replaced.
@Suite struct IDTokenValidatorRefreshTests {
    let factory: TokenFactory
    let keys: JWKS
    let previous: IDTokenClaims
    let later = IDTokenValidatorTests.now.addingTimeInterval(1800)

    init() throws {
        factory = try IDTokenValidatorTests.factory()
        keys = try ValidatorCase.providerKeys(factory)
        previous = try IDTokenValidator.validate(
            try factory.token(claims: factory.standardClaims()), keys: keys, expecting: factory.expectations(),
            now: IDTokenValidatorTests.now
        ).claims
    }

    private func refreshed(_ change: (inout [String: Any]) -> Void) throws -> String {
        var claims = factory.standardClaims()
        claims["iat"] = Int(later.timeIntervalSince1970)
        claims["exp"] = Int(later.timeIntervalSince1970) + 3600
        claims["nonce"] = nil
        change(&claims)
        return try factory.token(claims: claims)
    }

    private func validate(_ token: String, nonce: String? = nil, previous: IDTokenClaims? = nil) throws
        -> VerifiedIDToken
    {
        try IDTokenValidator.validateRefreshed(
            token, keys: keys, expecting: factory.expectations(nonce: nonce), previous: previous ?? self.previous,
            now: later)
    }

    @Test func sameSubjectWithoutNonceIsAccepted() throws {
        let verified = try validate(try refreshed { _ in })
        #expect(verified.claims.subject == previous.subject)
        #expect(verified.claims.nonce == nil)
    }

    @Test func nonceIsNotRequiredEvenWhenTheSignInHadOne() throws {
        let verified = try validate(try refreshed { _ in }, nonce: TokenFactory.nonce)
        #expect(verified.claims.issuedAt == later)
    }

    @Test func aRepeatedOriginalNonceIsAccepted() throws {
        let verified = try validate(try refreshed { $0["nonce"] = TokenFactory.nonce }, nonce: TokenFactory.nonce)
        #expect(verified.claims.nonce == TokenFactory.nonce)
    }

    @Test func aDifferentNonceIsRejected() throws {
        #expect(throws: IDTokenError.nonceMismatch) {
            try validate(try refreshed { $0["nonce"] = "other" }, nonce: TokenFactory.nonce)
        }
    }

    @Test func changedSubjectIsRejected() throws {
        #expect(throws: IDTokenError.subjectMismatch) {
            try validate(try refreshed { $0["sub"] = "user-2" })
        }
    }

    @Test func changedAudienceIsRejected() throws {
        #expect(throws: IDTokenError.audienceMismatch) {
            try validate(
                try refreshed {
                    $0["aud"] = [TokenFactory.clientID, "api"]
                    $0["azp"] = TokenFactory.clientID
                })
        }
    }

    @Test func audienceOrderDoesNotMatter() throws {
        var twoAudiences = previous
        twoAudiences.audience = ["api", TokenFactory.clientID]
        let verified = try validate(
            try refreshed {
                $0["aud"] = [TokenFactory.clientID, "api"]
                $0["azp"] = TokenFactory.clientID
            }, previous: twoAudiences)
        #expect(verified.claims.audience == [TokenFactory.clientID, "api"])
    }

    @Test func issuerDifferentFromThePreviousTokenIsRejected() throws {
        var fromElsewhere = previous
        fromElsewhere.issuer = "https://old.example"
        #expect(throws: IDTokenError.issuerMismatch) {
            try validate(try refreshed { _ in }, previous: fromElsewhere)
        }
    }

    @Test func signInChecksStillApply() throws {
        #expect(throws: IDTokenError.expired) {
            try validate(try refreshed { $0["exp"] = 1 })
        }
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validateRefreshed(
                try factory.token(claims: factory.standardClaims(), signer: try TestKeys.required(TestKeys.attacker)),
                keys: keys, expecting: factory.expectations(), previous: previous, now: later)
        }
    }

    @Test func canonicalSubjectMayChangeOnRefresh() throws {
        // Account linking can happen between refreshes; only `sub` is pinned.
        let verified = try validate(try refreshed { $0["canonical_sub"] = "canon-9" })
        #expect(verified.claims.effectiveSubject == "canon-9")
    }
}
