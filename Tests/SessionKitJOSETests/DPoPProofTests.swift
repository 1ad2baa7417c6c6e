import Foundation
import Testing

@testable import SessionKitJOSE

/// DPoP proof keys and proofs (RFC 9449 §4, RFC 7638).
@Suite struct DPoPProofTests {
    /// RFC 9449 §4.1's example key and the `jkt` §6.1 gives for it.
    @Test func theThumbprintOfTheRFCExampleKeyIsTheRFCValue() throws {
        let key = try P256PublicKey(
            x: Base64URL.decode("l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs"),
            y: Base64URL.decode("9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA"))
        #expect(key.thumbprint == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    /// RFC 9449 §7.1's example access token and its `ath`.
    @Test func theAccessTokenHashIsTheRFCValue() {
        #expect(
            DPoPProofSigner.accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")
                == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test func aKeyRoundTripsThroughItsStoredScalarAndStillSigns() throws {
        let key = try P256PrivateKey.generate()
        let scalar = try key.exportScalar()
        #expect(scalar.count == 32)
        let restored = try P256PrivateKey(scalar: scalar, x: key.publicKey.x, y: key.publicKey.y)
        #expect(restored.publicKey.thumbprint == key.publicKey.thumbprint)
        let signature = try restored.signES256([1, 2, 3])
        #expect(key.publicKey.verifyES256(signature: signature, message: [1, 2, 3]))
    }

    @Test func aScalarThatDoesNotBelongToThePublicKeyIsRefused() throws {
        let key = try P256PrivateKey.generate()
        let other = try P256PrivateKey.generate()
        #expect(throws: CryptoError.invalidKey) {
            try P256PrivateKey(scalar: other.exportScalar(), x: key.publicKey.x, y: key.publicKey.y)
        }
        #expect(throws: CryptoError.invalidKey) {
            try P256PrivateKey(scalar: [UInt8](repeating: 0, count: 32), x: key.publicKey.x, y: key.publicKey.y)
        }
        #expect(throws: CryptoError.invalidKey) {
            try P256PrivateKey(scalar: [1, 2, 3], x: key.publicKey.x, y: key.publicKey.y)
        }
        #expect(throws: CryptoError.invalidKey) {
            try P256PrivateKey(scalar: ECDSASignature.p256Order, x: key.publicKey.x, y: key.publicKey.y)
        }
    }

    @Test func aKeyRendersNothingOfItself() throws {
        let key = try P256PrivateKey.generate()
        let scalar = Base64URL.encode(try key.exportScalar())
        for rendering in ["\(key)", String(reflecting: key), String(describing: key)] {
            #expect(!rendering.contains(scalar))
            #expect(rendering == "P256PrivateKey(redacted)")
        }
    }

    @Test func aProofCarriesTheHeaderAndClaimsOfSection4() throws {
        let key = try P256PrivateKey.generate()
        let signer = DPoPProofSigner(key: key)
        let proof = try signer.proof(
            method: "POST", targetURI: "https://server.example.com/token", issuedAt: 1_562_262_616,
            accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU", nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try JSONParser.parseObject(Base64URL.decode(parts[0]))
        let claims = try JSONParser.parseObject(Base64URL.decode(parts[1]))
        #expect(header["typ"] == .string("dpop+jwt"))
        #expect(header["alg"] == .string("ES256"))
        let jwk = try #require(header["jwk"]?.objectValue)
        #expect(jwk["kty"] == .string("EC") && jwk["crv"] == .string("P-256"))
        #expect(jwk["x"] == .string(Base64URL.encode(key.publicKey.x)))
        #expect(jwk["y"] == .string(Base64URL.encode(key.publicKey.y)))
        #expect(jwk["d"] == nil && jwk["kid"] == nil)
        #expect(claims["htm"] == .string("POST"))
        #expect(claims["htu"] == .string("https://server.example.com/token"))
        #expect(claims["iat"] == .number(1_562_262_616))
        #expect(claims["ath"] == .string("fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"))
        #expect(claims["nonce"] == .string("eyJ7S_zG.eyJH0-Z.HX4w-7v"))
        let jti = try #require(claims["jti"]?.stringValue)
        #expect(try Base64URL.decode(jti).count == 16)
        let signature = try Base64URL.decode(parts[2])
        #expect(key.publicKey.verifyES256(signature: signature, message: Array("\(parts[0]).\(parts[1])".utf8)))
    }

    @Test func aProofWithoutTokenOrNonceOmitsThoseClaimsAndEachJTIIsNew() throws {
        let signer = DPoPProofSigner(key: try P256PrivateKey.generate())
        var seen = Set<String>()
        for _ in 0..<64 {
            let proof = try signer.proof(method: "GET", targetURI: "https://rs.example/", issuedAt: 1)
            let claims = try JSONParser.parseObject(Base64URL.decode(proof.split(separator: ".")[1]))
            #expect(claims["ath"] == nil && claims["nonce"] == nil)
            seen.insert(try #require(claims["jti"]?.stringValue))
        }
        #expect(seen.count == 64)
    }
}
