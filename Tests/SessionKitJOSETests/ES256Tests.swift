import Foundation
import SessionKitJOSE
import Testing

/// ES256 keys, signatures and JWKS `EC` entries.
@Suite struct ES256Tests {
    static let order: [UInt8] = [UInt8](hex: "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")!

    @Test func aSignatureVerifiesWithThePublicKeyOnly() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("header.payload".utf8)
        let signature = try key.signES256(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifyES256(signature: signature, message: message))
        #expect(!key.publicKey.verifyES256(signature: signature, message: message + [0]))
        let other = try P256PrivateKey.generate()
        #expect(!other.publicKey.verifyES256(signature: signature, message: message))
    }

    @Test func signaturesOfTheWrongLengthOrOutOfRangeAreRejected() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("m".utf8)
        let signature = try key.signES256(message)
        // DER, or r || s with a byte more or less, is not the JWS form.
        #expect(!key.publicKey.verifyES256(signature: Array(signature.dropLast()), message: message))
        #expect(!key.publicKey.verifyES256(signature: signature + [0], message: message))
        #expect(!key.publicKey.verifyES256(signature: [], message: message))
        let r = Array(signature[0..<32])
        let s = Array(signature[32..<64])
        let zero = [UInt8](repeating: 0, count: 32)
        #expect(!key.publicKey.verifyES256(signature: zero + s, message: message))
        #expect(!key.publicKey.verifyES256(signature: r + zero, message: message))
        // r + n and s + n are the same residues; they must not verify (no malleability by n).
        #expect(!key.publicKey.verifyES256(signature: Self.order + s, message: message))
        #expect(!key.publicKey.verifyES256(signature: r + Self.order, message: message))
    }

    @Test func theJWKOfAKeyRoundTripsThroughAJWKSDocument() throws {
        let key = try P256PrivateKey.generate()
        let jwk = key.publicJWK(keyID: "ec-1")
        #expect(jwk.kty == "EC" && jwk.crv == "P-256" && jwk.alg == "ES256" && jwk.use == "sig")
        #expect(jwk.x?.utf8.count == 43 && jwk.y?.utf8.count == 43)
        let decoded = try JWKS(jsonData: JWKS(keys: [jwk]).jsonData())
        #expect(decoded.keys == [jwk])
        #expect(decoded.verificationKeyCount(for: .es256) == 1)
        #expect(decoded.verificationKeyCount(for: .rs256) == 0)
        let verifying = try #require(decoded.p256VerificationKey(forKeyID: "ec-1"))
        let signature = try key.signES256([1, 2, 3])
        #expect(verifying.verifyES256(signature: signature, message: [1, 2, 3]))
    }

    /// A JWKS `EC` entry is usable for ES256 only when every member says so and the point is real.
    @Test func ecKeysAreParsedStrictly() throws {
        let key = try P256PrivateKey.generate()
        let good = key.publicJWK(keyID: "k")
        let x = try #require(good.x)
        let y = try #require(good.y)
        func usable(_ change: (inout JWK) -> Void) -> Bool {
            var jwk = good
            change(&jwk)
            return JWKS(keys: [jwk]).p256VerificationKey(forKeyID: "k") != nil
        }
        #expect(usable { _ in })
        #expect(
            usable {
                $0.use = nil
                $0.alg = nil
            })
        #expect(usable { $0.keyOperations = ["verify"] })
        #expect(!usable { $0.crv = "P-384" })
        #expect(!usable { $0.crv = nil })
        #expect(!usable { $0.kty = "RSA" })
        #expect(!usable { $0.alg = "RS256" })
        #expect(!usable { $0.alg = "ES384" })
        #expect(!usable { $0.use = "enc" })
        #expect(!usable { $0.keyOperations = ["sign"] })
        #expect(!usable { $0.keyOperations = ["verify", "encrypt"] })
        #expect(!usable { $0.x = nil })
        #expect(!usable { $0.y = nil })
        // Coordinates must be exactly 32 bytes: no dropped leading zero, no sign octet.
        #expect(!usable { $0.x = Base64URL.encode(try! Base64URL.decode(x).dropFirst()) })
        #expect(!usable { $0.x = Base64URL.encode([0] + (try! Base64URL.decode(x))) })
        // Not canonical base64url.
        #expect(!usable { $0.y = y + "=" })
        #expect(!usable { $0.y = String(y.dropLast()) + "~" })
        // A point off the curve: y changed by one.
        var yBytes = try Base64URL.decode(y)
        yBytes[31] ^= 1
        #expect(!usable { $0.y = Base64URL.encode(yBytes) })
        // The point at infinity has no affine form; (0, 0) is not on the curve.
        let zero = Base64URL.encode([UInt8](repeating: 0, count: 32))
        #expect(
            !usable {
                $0.x = zero
                $0.y = zero
            })
        // Coordinates at or above the field prime are refused, not reduced.
        let prime = [UInt8](hex: "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff")!
        #expect(!usable { $0.x = Base64URL.encode(prime) })
    }

    @Test func candidateRulesFollowTheAlgorithm() {
        let ec = JWK(kty: "EC", crv: "P-256")
        #expect(ec.isVerificationCandidate(for: .es256))
        #expect(!ec.isVerificationCandidate(for: .rs256))
        #expect(!ec.isRS256VerificationCandidate)
        let rsa = JWK(kty: "RSA")
        #expect(rsa.isVerificationCandidate(for: .rs256))
        #expect(!rsa.isVerificationCandidate(for: .es256))
        #expect(!ec.isVerificationCandidate(for: JWSAlgorithm(rawValue: "HS256")))
    }

    @Test func privateKeysAreNeverRendered() throws {
        let key = try P256PrivateKey.generate()
        #expect(String(describing: key) == "P256PrivateKey(redacted)")
        #expect(String(reflecting: key) == "P256PrivateKey(redacted)")
    }
}

/// ES256 id_tokens through the same validator as RS256.
@Suite struct ES256IDTokenTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func claims() -> [UInt8] {
        let seconds = Int(now.timeIntervalSince1970)
        return Array(
            #"{"iss":"https://op.example","sub":"user-1","aud":"client-123","exp":\#(seconds + 600),"iat":\#(seconds),"nonce":"n1"}"#
                .utf8)
    }

    static func expectations(_ algorithms: Set<JWSAlgorithm>) -> IDTokenExpectations {
        IDTokenExpectations(issuer: "https://op.example", clientID: "client-123", nonce: "n1", algorithms: algorithms)
    }

    @Test func anES256TokenValidatesWhenES256IsExpected() throws {
        let key = try P256PrivateKey.generate()
        let keys = JWKS(keys: [key.publicJWK(keyID: "ec-1")])
        let token = try CompactJWS.signES256(payload: Self.claims(), keyID: "ec-1", key: key)
        let verified = try IDTokenValidator.validate(token, keys: keys, expecting: Self.expectations([.es256]), now: Self.now)
        #expect(verified.claims.subject == "user-1")
        #expect(verified.keyID == "ec-1")
        _ = try IDTokenValidator.validate(token, keys: keys, expecting: Self.expectations([.rs256, .es256]), now: Self.now)
    }

    @Test func anES256TokenIsABadSignatureWhereOnlyRS256IsExpected() throws {
        let key = try P256PrivateKey.generate()
        let keys = JWKS(keys: [key.publicJWK(keyID: "ec-1")])
        let token = try CompactJWS.signES256(payload: Self.claims(), keyID: "ec-1", key: key)
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validate(token, keys: keys, expecting: Self.expectations([.rs256]), now: Self.now)
        }
        // The default is RS256 alone.
        #expect(IDTokenExpectations(issuer: "i", clientID: "c").algorithms == [.rs256])
    }

    @Test func keysAreChosenByAlgorithmAsWellAsKid() throws {
        let ecKey = try P256PrivateKey.generate()
        let rsaKey = try RSAPrivateKey.generate()
        // One kid on two keys of different types: each alg finds its own.
        let keys = JWKS(keys: [rsaKey.publicJWK(keyID: "same"), ecKey.publicJWK(keyID: "same")])
        let both = Self.expectations([.rs256, .es256])
        let es = try CompactJWS.signES256(payload: Self.claims(), keyID: "same", key: ecKey)
        let rs = try CompactJWS.signRS256(payload: Self.claims(), keyID: "same", key: rsaKey)
        _ = try IDTokenValidator.validate(es, keys: keys, expecting: both, now: Self.now)
        _ = try IDTokenValidator.validate(rs, keys: keys, expecting: both, now: Self.now)
        // An ES256 header over a kid only an RSA key has is an unknown kid, never an RSA check.
        let rsaOnly = JWKS(keys: [rsaKey.publicJWK(keyID: "same")])
        #expect(throws: IDTokenError.unknownKeyID) {
            try IDTokenValidator.validate(es, keys: rsaOnly, expecting: both, now: Self.now)
        }
    }

    @Test func aForgedOrTamperedES256TokenIsABadSignature() throws {
        let key = try P256PrivateKey.generate()
        let attacker = try P256PrivateKey.generate()
        let keys = JWKS(keys: [key.publicJWK(keyID: "ec-1")])
        let forged = try CompactJWS.signES256(payload: Self.claims(), keyID: "ec-1", key: attacker)
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validate(forged, keys: keys, expecting: Self.expectations([.es256]), now: Self.now)
        }
        // An RS256-sized signature under an ES256 header is refused by length, never truncated.
        let token = try CompactJWS.signES256(payload: Self.claims(), keyID: "ec-1", key: key)
        let parts = token.split(separator: ".")
        let long = parts[0] + "." + parts[1] + "." + Base64URL.encode([UInt8](repeating: 7, count: 256))
        #expect(throws: IDTokenError.badSignature) {
            try IDTokenValidator.validate(String(long), keys: keys, expecting: Self.expectations([.es256]), now: Self.now)
        }
    }

    @Test func aMissingKidUsesTheOnlyKeyOfTheTokensAlgorithm() throws {
        let key = try P256PrivateKey.generate()
        let rsaKey = try RSAPrivateKey.generate()
        let keys = JWKS(keys: [rsaKey.publicJWK(keyID: "r1"), rsaKey.publicJWK(keyID: "r2"), key.publicJWK(keyID: "ec-1")])
        var expectations = Self.expectations([.rs256, .es256])
        expectations.allowMissingKeyID = true
        let token = try CompactJWS.signES256(payload: Self.claims(), keyID: nil, key: key)
        _ = try IDTokenValidator.validate(token, keys: keys, expecting: expectations, now: Self.now)
        let rsaToken = try CompactJWS.signRS256(payload: Self.claims(), keyID: nil, key: rsaKey)
        #expect(throws: IDTokenError.missingKeyID) {
            try IDTokenValidator.validate(rsaToken, keys: keys, expecting: expectations, now: Self.now)
        }
    }
}

/// The byte-level `at_hash` comparison agrees with the text one and refuses non-canonical claims.
@Suite struct AccessTokenHashMatchTests {
    @Test func matchesExactlyTheComputedClaim() throws {
        let token = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"
        let claim = AccessTokenHash.compute(for: token)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let key = try P256PrivateKey.generate()
        let keys = JWKS(keys: [key.publicJWK(keyID: "k")])
        func validate(_ atHash: String) throws(IDTokenError) {
            let claims = #"{"iss":"i","sub":"s","aud":"c","exp":1800000600,"iat":1800000000,"at_hash":"\#(atHash)"}"#
            let signed = try! CompactJWS.signES256(payload: Array(claims.utf8), keyID: "k", key: key)
            _ = try IDTokenValidator.validate(
                signed, keys: keys, expecting: IDTokenExpectations(issuer: "i", clientID: "c", accessToken: token, algorithms: [.es256]),
                now: now)
        }
        try validate(claim)
        var last = Array(claim.utf8)
        last[last.count - 1] = last[last.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "Q") : UInt8(ascii: "A")
        #expect(throws: IDTokenError.accessTokenHashMismatch) { try validate(String(decoding: last, as: UTF8.self)) }
        // The last character's unused low bits set: the same 16 bytes to a lax decoder, not the claim.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let lastCharacter = try #require(claim.last)
        let lastIndex = try #require(alphabet.firstIndex(of: lastCharacter))
        #expect(lastIndex & 0x0F == 0)
        let stray = String(claim.dropLast()) + String(alphabet[lastIndex | 1])
        #expect(throws: IDTokenError.accessTokenHashMismatch) { try validate(stray) }
        #expect(throws: IDTokenError.accessTokenHashMismatch) { try validate(claim + "A") }
        #expect(throws: IDTokenError.accessTokenHashMismatch) { try validate(String(claim.dropLast())) }
    }
}
