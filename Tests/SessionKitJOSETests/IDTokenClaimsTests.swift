import Foundation
import SessionKitJOSE
import Testing

/// The verified token's claims: the standard ones typed (OIDC Core §2, §5.1), every other one
/// kept for typed access, and all of them only from a token that verified.
@Suite struct IDTokenClaimsTests {
    let factory: TokenFactory
    let keys: JWKS

    init() throws {
        factory = try IDTokenValidatorTests.factory()
        keys = try ValidatorCase.providerKeys(factory)
    }

    private func verify(_ change: (inout [String: Any]) -> Void) throws -> IDTokenClaims {
        let token = try factory.token(claims: ValidatorCase.claims(factory, change))
        return try IDTokenValidator.validate(token, keys: keys, expecting: factory.expectations(), now: IDTokenValidatorTests.now)
            .claims
    }

    static func withStandardClaims(_ claims: inout [String: Any]) {
        claims["name"] = "Alice Example"
        claims["given_name"] = "Alice"
        claims["family_name"] = "Example"
        claims["preferred_username"] = "alice"
        claims["email"] = "alice@example.com"
        claims["email_verified"] = true
        claims["picture"] = "https://example.com/alice.png"
        claims["locale"] = "en-GB"
        claims["updated_at"] = 1_700_000_000
        claims["auth_time"] = IDTokenValidatorTests.seconds - 30
        claims["acr"] = "urn:mace:incommon:iap:silver"
        claims["amr"] = ["pwd", "otp"]
    }

    @Test func standardClaimsAreTyped() throws {
        let claims = try verify(Self.withStandardClaims)
        #expect(
            claims.profile
                == ProfileClaims(
                    name: "Alice Example", givenName: "Alice", familyName: "Example", preferredUsername: "alice",
                    email: "alice@example.com", emailVerified: true, picture: "https://example.com/alice.png", locale: "en-GB",
                    updatedAt: Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(claims.authenticationTime == Date(timeIntervalSince1970: Double(IDTokenValidatorTests.seconds - 30)))
        #expect(claims.authenticationContextClass == "urn:mace:incommon:iap:silver")
        #expect(claims.authenticationMethods == ["pwd", "otp"])
        // Typed claims are not repeated among the additional ones.
        #expect(claims.additionalClaims.isEmpty)
    }

    @Test func absentStandardClaimsAreNil() throws {
        let claims = try verify { _ in }
        #expect(claims.profile == ProfileClaims())
        #expect(claims.authenticationTime == nil)
        #expect(claims.authenticationMethods == nil)
    }

    @Test func nullCountsAsAbsent() throws {
        let claims = try verify {
            $0["name"] = NSNull()
            $0["email_verified"] = NSNull()
            $0["updated_at"] = NSNull()
            $0["amr"] = NSNull()
        }
        #expect(claims.profile == ProfileClaims())
        #expect(claims.authenticationMethods == nil)
    }

    struct Address: Decodable, Equatable {
        var locality: String
        var country: String
    }

    @Test func customClaimsAreReadWithTheirTypes() throws {
        let claims = try verify {
            $0["tenant"] = "acme"
            $0["roles"] = ["admin", "billing"]
            $0["level"] = 3
            $0["beta"] = false
            $0["address"] = ["locality": "Lyon", "country": "FR"]
            $0["nothing"] = NSNull()
        }
        #expect(try claims.custom("tenant", as: String.self) == "acme")
        #expect(try claims.custom("roles", as: [String].self) == ["admin", "billing"])
        #expect(try claims.custom("level", as: Int.self) == 3)
        #expect(try claims.custom("level", as: Double.self) == 3)
        #expect(try claims.custom("beta", as: Bool.self) == false)
        #expect(try claims.custom("address", as: Address.self) == Address(locality: "Lyon", country: "FR"))
        #expect(try claims.custom("absent", as: String.self) == nil)
        #expect(claims.additionalClaims["nothing"] == .null)
        #expect(claims.additionalClaims["roles"]?.arrayValue?.compactMap(\.stringValue) == ["admin", "billing"])
        #expect(claims.additionalClaims["address"]?.objectValue?["country"]?.stringValue == "FR")
    }

    @Test func aCustomClaimOfAnotherShapeIsATypedError() throws {
        let claims = try verify {
            $0["tenant"] = "acme"
            $0["level"] = 3.5
            $0["beta"] = 1
        }
        #expect(throws: ClaimError.typeMismatch(claim: "tenant")) { try claims.custom("tenant", as: Int.self) }
        #expect(throws: ClaimError.typeMismatch(claim: "level")) { try claims.custom("level", as: Int.self) }
        #expect(throws: ClaimError.typeMismatch(claim: "beta")) { try claims.custom("beta", as: Bool.self) }
        let error = ClaimError.typeMismatch(claim: "tenant")
        #expect(error.description == "claim_type_mismatch(tenant)")
        #expect(!error.description.contains("acme"))
    }

    @Test(arguments: [
        ("name", 7 as any Sendable), ("given_name", true), ("email", ["a@b"]), ("email_verified", "true"),
        ("picture", false), ("locale", 1), ("updated_at", "2024-01-01"), ("preferred_username", ["x": 1]),
        ("amr", "pwd"), ("amr", [1]), ("acr", true), ("auth_time", "now"),
    ])
    func aStandardClaimOfTheWrongTypeIsMalformed(claim: String, value: any Sendable) throws {
        let token = try factory.token(claims: ValidatorCase.claims(factory) { $0[claim] = value })
        #expect(throws: IDTokenError.malformed) {
            try IDTokenValidator.validate(token, keys: keys, expecting: factory.expectations(), now: IDTokenValidatorTests.now)
        }
    }

    @Test func claimsOfAForgedTokenAreNeverExposed() throws {
        let forged = try factory.token(
            claims: ValidatorCase.claims(factory, Self.withStandardClaims), signer: try TestKeys.required(TestKeys.attacker))
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validate(forged, keys: keys, expecting: factory.expectations(), now: IDTokenValidatorTests.now)
        }
    }

    @Test func codableRoundTripKeepsEveryClaimFlat() throws {
        let claims = try verify {
            Self.withStandardClaims(&$0)
            $0["tenant"] = "acme"
            $0["address"] = ["locality": "Lyon"]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(claims)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["tenant"] as? String == "acme")
        #expect(object["given_name"] as? String == "Alice")
        #expect(object["amr"] as? [String] == ["pwd", "otp"])
        #expect(try JSONDecoder().decode(IDTokenClaims.self, from: data) == claims)
    }

    /// Claims persisted before the standard and additional claims existed still decode.
    @Test func decodesTheEarlierPersistedForm() throws {
        let old = #"{"iss":"https://op","sub":"s","aud":["c"],"exp":800000000,"iat":799990000,"linked_subs":[],"anonymous":false}"#
        let claims = try JSONDecoder().decode(IDTokenClaims.self, from: Data(old.utf8))
        #expect(claims.subject == "s")
        #expect(claims.anonymous == false)
        #expect(claims.profile == ProfileClaims())
        #expect(claims.additionalClaims.isEmpty)
    }
}
