import Testing

@testable import SessionKitJOSE

@Suite struct CryptoTests {
    @Test func sha256KnownAnswers() {
        func hex(_ bytes: [UInt8]) -> String {
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        }
        #expect(hex(SHA256Digest.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hex(SHA256Digest.hash("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // A non-contiguous sequence takes the copying path and must agree.
        #expect(SHA256Digest.hash("abc".utf8.lazy.map { $0 }) == SHA256Digest.hash(Array("abc".utf8)))
    }

    @Test func secureRandomDeliversDistinctBytes() throws {
        let first = try SecureRandom.bytes(count: 32)
        let second = try SecureRandom.bytes(count: 32)
        #expect(first.count == 32)
        #expect(first != second)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        #expect(throws: CryptoError.invalidParameter) { try SecureRandom.bytes(count: -1) }
    }

    @Test func signAndVerify() throws {
        let key = try #require(TestKeys.provider)
        let message = Array("signed".utf8)
        let signature = try key.signRS256(message)
        #expect(signature.count == 256)
        #expect(key.publicKey.modulusBitCount == 2048)
        #expect(key.publicKey.verifyRS256(signature: signature, message: message))
        #expect(!key.publicKey.verifyRS256(signature: signature, message: message + [0]))
        #expect(!key.publicKey.verifyRS256(signature: [0] + signature, message: message))
        #expect(!key.publicKey.verifyRS256(signature: [], message: message))
        #expect(!(try #require(TestKeys.attacker)).publicKey.verifyRS256(signature: signature, message: message))
        // PKCS #1 v1.5 is deterministic.
        #expect(try key.signRS256(message) == signature)
    }

    @Test("a key's reused signing and verification contexts are not changed by the operations on them")
    func reusedContextsStayClean() throws {
        let rsa = try #require(TestKeys.provider)
        let ec = try P256PrivateKey.generate()
        let message = Array("signed".utf8)
        let rsaSignature = try rsa.signRS256(message)
        var esSignatures: Set<[UInt8]> = []
        for round in 0..<4 {
            // A refusal (wrong message, a flipped bit) between valid checks leaves nothing behind.
            #expect(rsa.publicKey.verifyRS256(signature: rsaSignature, message: message))
            #expect(!rsa.publicKey.verifyRS256(signature: rsaSignature, message: message + [UInt8(round)]))
            var flipped = rsaSignature
            flipped[round] ^= 1
            #expect(!rsa.publicKey.verifyRS256(signature: flipped, message: message))
            let es = try ec.signES256(message)
            esSignatures.insert(es)
            #expect(ec.publicKey.verifyES256(signature: es, message: message))
            #expect(!ec.publicKey.verifyES256(signature: es, message: message + [0]))
        }
        // ECDSA draws a fresh nonce for every signature, also from a reused context.
        #expect(esSignatures.count == 4)
    }

    @Test("one key verifies and signs from many threads at once")
    func concurrentUseOfOneKey() async throws {
        let rsa = try #require(TestKeys.provider)
        let ec = try P256PrivateKey.generate()
        let message = Array("signed".utf8)
        let rsaSignature = try rsa.signRS256(message)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<32 {
                group.addTask {
                    let es = try ec.signES256(message + [UInt8(index)])
                    return rsa.publicKey.verifyRS256(signature: rsaSignature, message: message)
                        && !rsa.publicKey.verifyRS256(signature: rsaSignature, message: message + [UInt8(index)])
                        && ec.publicKey.verifyES256(signature: es, message: message + [UInt8(index)])
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 32)
        #expect(results.allSatisfy { $0 })
    }

    @Test func publicJWKDescribesTheKey() throws {
        let key = try #require(TestKeys.provider)
        let jwk = key.publicJWK(keyID: "k1")
        #expect(jwk.kty == "RSA" && jwk.kid == "k1" && jwk.use == "sig" && jwk.alg == "RS256")
        #expect(jwk.e == "AQAB")
        let rebuilt = try jwk.rsaPublicKey()
        let message = Array("x".utf8)
        #expect(rebuilt.verifyRS256(signature: try key.signRS256(message), message: message))
    }

    @Test func generationRejectsWeakSizes() {
        #expect(throws: CryptoError.invalidParameter) { try RSAPrivateKey.generate(bitCount: 1024) }
        #expect(throws: CryptoError.invalidParameter) { try RSAPrivateKey.generate(bitCount: 100_000) }
    }

    @Test func publicKeyParameterChecks() throws {
        let modulus = try #require(TestKeys.provider).publicKey.modulus
        #expect(try RSAPublicKey(modulus: [0, 0] + modulus, exponent: [0, 1, 0, 1]).modulusBitCount == 2048)
        // Too small, even modulus, bad exponents.
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: Array(modulus.prefix(255)), exponent: [1, 0, 1]) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: modulus.dropLast() + [2], exponent: [1, 0, 1]) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: [1]) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: [2]) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: []) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: [0, 0]) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: modulus, exponent: [UInt8](repeating: 1, count: 9)) }
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: [], exponent: [3]) }
        let huge = [UInt8](repeating: 0xFF, count: 16384 / 8 + 1)
        #expect(throws: CryptoError.invalidKey) { try RSAPublicKey(modulus: huge, exponent: [3]) }
        #expect(try RSAPublicKey(modulus: modulus, exponent: [3]).modulusBitCount == 2048)
    }

    @Test func pkcs1DERRoundTrip() throws {
        let key = try #require(TestKeys.provider).publicKey
        let der = RSAKeyDER.publicKey(modulus: key.modulus, exponent: key.exponent)
        #expect(der.prefix(4) == [0x30, 0x82, 0x01, 0x0A])
        let parsed = try #require(RSAKeyDER.parsePublicKey(der))
        #expect(parsed.modulus == key.modulus)
        #expect(parsed.exponent == [1, 0, 1])
        #expect(RSAKeyDER.publicKey(modulus: [0x01], exponent: [0x03]) == [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x03])
        #expect(RSAKeyDER.publicKey(modulus: [0x80], exponent: [0x03]) == [0x30, 0x07, 0x02, 0x02, 0x00, 0x80, 0x02, 0x01, 0x03])
    }

    @Test(
        arguments: [
            [],
            [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01],  // truncated
            [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x03, 0x00],  // trailing byte
            [0x31, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x03],  // SET, not SEQUENCE
            [0x30, 0x81, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x03],  // long form for a short length
            [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x03],  // non-minimal integer
            [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x03],  // negative modulus
            [0x30, 0x03, 0x02, 0x01, 0x01],  // one integer
        ] as [[UInt8]])
    func pkcs1DERRejectsMalformedInput(der: [UInt8]) {
        #expect(RSAKeyDER.parsePublicKey(der) == nil)
    }
}
