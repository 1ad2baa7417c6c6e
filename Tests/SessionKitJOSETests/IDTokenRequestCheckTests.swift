import Foundation
import SessionKitJOSE
import Testing

/// The checks that answer what the authorization request asked for: `max_age` needs a fresh
/// enough `auth_time` (OIDC Core §3.1.2.1, §3.1.3.7), essential `acr` values need one of them
/// (§5.5.1.1). They run after `nonce` and before `sub`.
@Suite struct IDTokenRequestCheckTests {
    static let now = IDTokenValidatorTests.seconds

    static func expecting(maxAge: Double? = nil, acr: [String] = [], skew: Double = 60) -> @Sendable (TokenFactory) -> IDTokenExpectations {
        { f in
            var expectations = f.expectations()
            expectations.maxAge = maxAge
            expectations.requiredACRValues = acr
            expectations.skew = skew
            return expectations
        }
    }

    static let cases: [ValidatorCase] = [
        ValidatorCase(
            name: "max_age without auth_time", expected: .missingAuthTime, expecting: expecting(maxAge: 300),
            token: { f in try f.token(claims: f.standardClaims()) }),
        ValidatorCase(
            name: "auth_time long past max_age", expected: .authTimeTooOld, expecting: expecting(maxAge: 300),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = now - 1000 }) }),
        ValidatorCase(
            name: "auth_time past max_age within the skew", expected: nil, expecting: expecting(maxAge: 300),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = now - 360 }) }),
        ValidatorCase(
            name: "auth_time one second beyond max_age plus skew", expected: .authTimeTooOld,
            expecting: expecting(maxAge: 300), token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = now - 361 }) }),
        ValidatorCase(
            name: "auth_time past max_age with no skew", expected: .authTimeTooOld, expecting: expecting(maxAge: 300, skew: 0),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = now - 301 }) }),
        ValidatorCase(
            name: "max_age zero with a fresh auth_time", expected: nil, expecting: expecting(maxAge: 0),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = now - 5 }) }),
        ValidatorCase(
            name: "negative max_age counts as zero", expected: .authTimeTooOld, expecting: expecting(maxAge: -50, skew: 0),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = now - 1 }) }),
        ValidatorCase(
            name: "old auth_time is not judged without max_age", expected: nil,
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = 1 }) }),
        ValidatorCase(
            name: "auth_time of the wrong type", expected: .malformed,
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["auth_time"] = "recently" }) }),

        ValidatorCase(
            name: "acr among the essential values", expected: nil, expecting: expecting(acr: ["urn:mfa", "urn:hw"]),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["acr"] = "urn:hw" }) }),
        ValidatorCase(
            name: "acr outside the essential values", expected: .acrMismatch, expecting: expecting(acr: ["urn:mfa"]),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["acr"] = "urn:pwd" }) }),
        ValidatorCase(
            name: "acr missing with essential values", expected: .acrMismatch, expecting: expecting(acr: ["urn:mfa"]),
            token: { f in try f.token(claims: f.standardClaims()) }),
        ValidatorCase(
            name: "any acr without essential values", expected: nil,
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["acr"] = "0" }) }),
        ValidatorCase(
            name: "acr of the wrong type", expected: .malformed,
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["acr"] = 2 }) }),

        // Order: nonce → auth_time → acr → sub.
        ValidatorCase(
            name: "nonce wins over auth_time", expected: .nonceMismatch, expecting: expecting(maxAge: 300),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["nonce"] = "other" }) }),
        ValidatorCase(
            name: "auth_time wins over acr", expected: .missingAuthTime, expecting: expecting(maxAge: 300, acr: ["urn:mfa"]),
            token: { f in try f.token(claims: f.standardClaims()) }),
        ValidatorCase(
            name: "acr wins over sub", expected: .acrMismatch, expecting: expecting(acr: ["urn:mfa"]),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["sub"] = nil }) }),
        ValidatorCase(
            name: "expired wins over auth_time", expected: .expired, expecting: expecting(maxAge: 300),
            token: { f in try f.token(claims: ValidatorCase.claims(f) { $0["exp"] = 1 }) }),
    ]

    @Test(arguments: cases)
    func table(_ row: ValidatorCase) throws {
        let factory = try IDTokenValidatorTests.factory()
        let token = try row.token(factory)
        let keys = try row.keys(factory)
        let expecting = row.expecting(factory)
        if let expected = row.expected {
            #expect(throws: expected) {
                try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: IDTokenValidatorTests.now)
            }
        } else {
            _ = try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: IDTokenValidatorTests.now)
        }
    }

    @Test func everyRequestCheckCodeIsCovered() {
        let covered = Set(Self.cases.compactMap(\.expected).map(\.code))
        #expect(covered.isSuperset(of: ["missing_auth_time", "auth_time_too_old", "acr_mismatch"]))
    }

    /// A refreshed token keeps the original `auth_time` (§12.2), so `max_age` and essential `acr`
    /// are not judged on refresh.
    @Test func requestChecksDoNotApplyToARefresh() throws {
        let factory = try IDTokenValidatorTests.factory()
        let keys = try ValidatorCase.providerKeys(factory)
        var expecting = factory.expectations()
        expecting.maxAge = 300
        expecting.requiredACRValues = ["urn:mfa"]
        let signIn = try factory.token(
            claims: ValidatorCase.claims(factory) {
                $0["auth_time"] = Self.now - 10
                $0["acr"] = "urn:mfa"
            })
        let previous = try IDTokenValidator.validate(signIn, keys: keys, expecting: expecting, now: IDTokenValidatorTests.now).claims
        #expect(previous.authenticationTime == Date(timeIntervalSince1970: Double(Self.now - 10)))
        #expect(previous.authenticationContextClass == "urn:mfa")

        let later = IDTokenValidatorTests.now.addingTimeInterval(7200)
        let refreshed = try factory.token(
            claims: ValidatorCase.claims(factory) {
                $0["auth_time"] = Self.now - 10
                $0["iat"] = Self.now + 7200
                $0["exp"] = Self.now + 10_800
                $0["nonce"] = nil
            })
        let verified = try IDTokenValidator.validateRefreshed(refreshed, keys: keys, expecting: expecting, previous: previous, now: later)
        #expect(verified.claims.authenticationTime == previous.authenticationTime)
        #expect(verified.claims.authenticationContextClass == nil)
    }

    @Test func expectationsShowTheRequestChecksButNoSecret() {
        let expectations = IDTokenExpectations(
            issuer: "https://op.example", clientID: "c", nonce: "nonce-secret-value", accessToken: "access-secret-value",
            maxAge: 600, requiredACRValues: ["urn:mfa"])
        var dumped = ""
        dump(expectations, to: &dumped)
        for text in [expectations.description, expectations.debugDescription, dumped] {
            #expect(text.contains("600"))
            #expect(text.contains("urn:mfa"))
            #expect(!text.contains("nonce-secret-value"))
            #expect(!text.contains("access-secret-value"))
        }
    }
}
