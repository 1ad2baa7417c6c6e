import Foundation
import SessionKitJOSE

/// A provider-like setup: a three-key JWKS and an ID token shaped like a real one (2048-bit RS256,
/// `kid`, nonce, `at_hash`, the account-identity claims), valid for an hour from now.
struct Fixture {
    static let issuer = "https://api.1pass.dev"
    static let clientID = "com.example.app"
    static let nonce = "b4CMzvm2bJcZ2sQ8Zl1RxQ"
    static let accessToken = "at-7Y0mXq1dG8vN3pR5sW2kJ9fL4hB6cT0e"

    let key: RSAPrivateKey
    let jwks: JWKS
    let jwksJSON: [UInt8]
    let token: String
    let now: Date

    init(now: Date) throws {
        key = try RSAPrivateKey.generate()
        let previous = try RSAPrivateKey.generate()
        let ec = JWK(kty: "EC", kid: "ec-1", use: "sig", alg: "ES256")
        jwks = JWKS(keys: [previous.publicJWK(keyID: "2025-12"), key.publicJWK(keyID: "2026-06"), ec])
        jwksJSON = jwks.jsonData()
        let seconds = Int(now.timeIntervalSince1970)
        let claims = """
            {"iss":"\(Self.issuer)","sub":"2f8c1e0a-7d4b-4c59-9a0e-5b1d3f6e8a21","aud":"\(Self.clientID)",\
            "exp":\(seconds + 3600),"iat":\(seconds),"auth_time":\(seconds - 5),"nonce":"\(Self.nonce)",\
            "at_hash":"\(AccessTokenHash.compute(for: Self.accessToken))","email":"someone@example.com",\
            "email_verified":true,"canonical_sub":"2f8c1e0a-7d4b-4c59-9a0e-5b1d3f6e8a21","is_canonical":true,\
            "linked_subs":[],"anonymous":false}
            """
        token = try CompactJWS.signRS256(payload: Array(claims.utf8), keyID: "2026-06", key: key)
        self.now = now
    }

    var expectations: IDTokenExpectations {
        IDTokenExpectations(
            issuer: Self.issuer, clientID: Self.clientID, nonce: Self.nonce, accessToken: Self.accessToken)
    }
}
