import Foundation
import Testing

@testable import SessionKitJOSE

@Suite struct JWKSTests {
    static func rsaJWK(_ key: RSAPrivateKey, kid: String) -> String {
        let jwk = key.publicJWK(keyID: kid)
        return #"{"kty":"RSA","kid":"\#(kid)","use":"sig","alg":"RS256","n":"\#(jwk.n ?? "")","e":"\#(jwk.e ?? "")"}"#
    }

    @Test func mixedSetKeepsItsRSAKeysUsable() throws {
        let key = try #require(TestKeys.provider)
        let document = """
            {"keys":[
              {"kty":"EC","kid":"ec1","crv":"P-256","x":"f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU","y":"x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0","use":"sig","alg":"ES256"},
              {"kty":"oct","kid":"hmac","k":"AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow"},
              {"kty":"OKP","kid":"ed","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
              \(Self.rsaJWK(key, kid: "k1")),
              42,
              "not a key",
              {"kid":"no-kty"},
              {"kty":"RSA","kid":"bad-n","n":"!!","e":"AQAB"},
              {"kty":"RSA","kid":7}
            ],"extra":{"ignored":true}}
            """
        let keys = try JWKS(jsonData: Array(document.utf8))
        #expect(keys.keys.map(\.kty) == ["EC", "oct", "OKP", "RSA", "RSA"])
        #expect(keys.verificationKeyCount == 1)
        #expect(keys.verificationKey(forKeyID: "k1")?.modulusBitCount == 2048)
        #expect(keys.verificationKey(forKeyID: "ec1") == nil)
        #expect(keys.verificationKey(forKeyID: "bad-n") == nil)
    }

    @Test func roundTripsThroughJSON() throws {
        let first = try #require(TestKeys.provider).publicJWK(keyID: "k1")
        let second = try #require(TestKeys.rotated).publicJWK(keyID: #"k"2\"#)
        let set = JWKS(keys: [first, second, JWK(kty: "EC", kid: "ec1")])
        let decoded = try JWKS(jsonData: set.jsonData())
        #expect(decoded.keys == set.keys)
        #expect(decoded.verificationKeyCount == 2)
        #expect(decoded.verificationKey(forKeyID: #"k"2\"#) != nil)
        let text = String(decoding: set.jsonData(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"keys":[{"kty":"RSA","kid":"k1","use":"sig","alg":"RS256","n":""#))
    }

    @Test func cachedKeyVerifiesWhatThePrivateKeySigned() throws {
        let key = try #require(TestKeys.provider)
        let set = JWKS(keys: [key.publicJWK(keyID: "k1")])
        let message = Array("message".utf8)
        let signature = try key.signRS256(message)
        let cached = try #require(set.verificationKey(forKeyID: "k1"))
        #expect(cached.verifyRS256(signature: signature, message: message))
        #expect(!cached.verifyRS256(signature: signature, message: Array("massage".utf8)))
    }

    @Test func firstKeyWinsWhenAKeyIDRepeats() throws {
        let first = try #require(TestKeys.provider)
        let second = try #require(TestKeys.rotated)
        let set = JWKS(keys: [first.publicJWK(keyID: "k"), second.publicJWK(keyID: "k")])
        let message = Array("m".utf8)
        let cached = try #require(set.verificationKey(forKeyID: "k"))
        #expect(cached.verifyRS256(signature: try first.signRS256(message), message: message))
        #expect(!cached.verifyRS256(signature: try second.signRS256(message), message: message))
        #expect(set.verificationKeyCount == 2)
    }

    @Test func leadingZeroInModulusIsTolerated() throws {
        var jwk = try #require(TestKeys.provider).publicJWK(keyID: "k1")
        jwk.n = Base64URL.encode([0] + (try Base64URL.decode(try #require(jwk.n))))
        #expect(try jwk.rsaPublicKey().modulusBitCount == 2048)
    }

    @Test(arguments: [
        (#"{"keys":{}}"#, JOSEError.invalidJWKS),
        (#"{"key":[]}"#, .invalidJWKS),
        (#"[]"#, .notAnObject),
        (#"{"keys":[]"#, .invalidJSON),
        (#"{"keys":[],"keys":[]}"#, .duplicateMember),
        (#"{"keys":[{"kty":"RSA","kty":"EC"}]}"#, .duplicateMember),
        ("", .invalidJSON),
        (String(repeating: "[", count: 100), .nestingTooDeep),
    ])
    func badDocumentsThrow(document: String, error: JOSEError) {
        #expect(throws: error) { try JWKS(jsonData: Array(document.utf8)) }
    }

    @Test func emptyKeyArrayIsAValidEmptySet() throws {
        let set = try JWKS(jsonData: Array(#"{"keys":[]}"#.utf8))
        #expect(set.keys.isEmpty)
        #expect(set.verificationKeyCount == 0)
    }

    @Test func oversizedDocumentIsRejectedBeforeParsing() {
        let document = [UInt8](repeating: UInt8(ascii: " "), count: JWKS.maximumSize + 1)
        #expect(throws: JOSEError.tooLarge) { try JWKS(jsonData: document) }
    }

    @Test func candidateRules() {
        #expect(JWK(kty: "RSA").isRS256VerificationCandidate)
        #expect(JWK(kty: "RSA", use: "sig", alg: "RS256").isRS256VerificationCandidate)
        #expect(!JWK(kty: "RSA", use: "enc").isRS256VerificationCandidate)
        #expect(!JWK(kty: "RSA", alg: "PS256").isRS256VerificationCandidate)
        #expect(!JWK(kty: "EC").isRS256VerificationCandidate)
        #expect(!JWK(kty: "rsa").isRS256VerificationCandidate)
    }

    @Test func keyOperationsRules() {
        #expect(JWK(kty: "RSA", keyOperations: ["verify"]).isRS256VerificationCandidate)
        #expect(JWK(kty: "RSA", use: "sig", keyOperations: ["sign", "verify"]).isRS256VerificationCandidate)
        #expect(!JWK(kty: "RSA", keyOperations: ["sign"]).isRS256VerificationCandidate)
        #expect(!JWK(kty: "RSA", keyOperations: []).isRS256VerificationCandidate)
        #expect(!JWK(kty: "RSA", keyOperations: ["encrypt"]).isRS256VerificationCandidate)
        // `use` and `key_ops` together must agree (RFC 7517 §4.3).
        #expect(!JWK(kty: "RSA", use: "sig", keyOperations: ["verify", "encrypt"]).isRS256VerificationCandidate)
        #expect(!JWK(kty: "RSA", use: "enc", keyOperations: ["verify"]).isRS256VerificationCandidate)
    }

    /// RFC 7517 §4.3: a key whose `key_ops` does not allow verification never verifies, even
    /// with the token's `kid`; a key that allows it does.
    @Test func keyOperationsDecideWhetherAPublishedKeyVerifies() throws {
        let key = try #require(TestKeys.provider)
        let jwk = key.publicJWK(keyID: "k1")
        func document(_ members: String) -> [UInt8] {
            Array(#"{"keys":[{"kty":"RSA","kid":"k1",\#(members)"n":"\#(jwk.n ?? "")","e":"\#(jwk.e ?? "")"}]}"#.utf8)
        }
        let token = try CompactJWS.signRS256(payload: Array("{}".utf8), keyID: "k1", key: key)

        let signOnly = try JWKS(jsonData: document(#""key_ops":["sign"],"#))
        #expect(signOnly.keys.first?.keyOperations == ["sign"])
        #expect(signOnly.verificationKeyCount == 0)
        #expect(throws: IDTokenError.unknownKeyID) { try CompactJWS.verifyRS256(token, keys: signOnly) }

        let inconsistent = try JWKS(jsonData: document(#""use":"sig","key_ops":["verify","decrypt"],"#))
        #expect(throws: IDTokenError.unknownKeyID) { try CompactJWS.verifyRS256(token, keys: inconsistent) }

        let verify = try JWKS(jsonData: document(#""use":"sig","key_ops":["verify"],"#))
        #expect(verify.verificationKeyCount == 1)
        _ = try CompactJWS.verifyRS256(token, keys: verify)

        // A repeated value or a non-string makes the entry unreadable: it is skipped.
        #expect(try JWKS(jsonData: document(#""key_ops":["verify","verify"],"#)).keys.isEmpty)
        #expect(try JWKS(jsonData: document(#""key_ops":["verify",1],"#)).keys.isEmpty)
        #expect(try JWKS(jsonData: document(#""key_ops":"verify","#)).keys.isEmpty)
    }

    @Test func keyOperationsRoundTripThroughJSON() throws {
        var jwk = try #require(TestKeys.provider).publicJWK(keyID: "k1")
        jwk.keyOperations = ["verify"]
        let set = JWKS(keys: [jwk])
        let text = String(decoding: set.jsonData(), as: UTF8.self)
        #expect(text.hasPrefix(#"{"keys":[{"kty":"RSA","kid":"k1","use":"sig","key_ops":["verify"],"alg":"RS256","#))
        #expect(try JWKS(jsonData: set.jsonData()).keys == [jwk])
    }

    @Test func nonRSAKeyHasNoRSAPublicKey() {
        #expect(throws: CryptoError.invalidKey) { try JWK(kty: "EC", n: "AQAB", e: "AQAB").rsaPublicKey() }
        #expect(throws: CryptoError.invalidKey) { try JWK(kty: "RSA", n: "AQAB").rsaPublicKey() }
        #expect(throws: CryptoError.invalidKey) { try JWK(kty: "RSA", n: "AQAB=", e: "AQAB").rsaPublicKey() }
    }
}

/// The key set builds each backend key once; verification reuses it.
@Suite struct JWKSKeyCacheTests {
    @Test func lookupsReturnTheSameBackendKey() throws {
        let set = JWKS(keys: [try #require(TestKeys.provider).publicJWK(keyID: "k1")])
        let first = try #require(set.verificationKey(forKeyID: "k1"))
        let second = try #require(set.verificationKey(forKeyID: "k1"))
        #expect(first.handle === second.handle)
        let copy = set
        #expect(try #require(copy.verificationKey(forKeyID: "k1")).handle === first.handle)
    }
}
