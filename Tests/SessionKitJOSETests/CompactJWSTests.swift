import SessionKitJOSE
import Testing

@Suite struct CompactJWSTests {
    @Test func signedHeaderHasTheDocumentedShape() throws {
        let key = try #require(TestKeys.provider)
        let token = try CompactJWS.signRS256(payload: Array("{}".utf8), keyID: #"k"1"#, key: key)
        let jws = try CompactJWS.decode(token)
        #expect(
            String(decoding: try Base64URL.decode(token.split(separator: ".")[0]), as: UTF8.self)
                == #"{"alg":"RS256","typ":"JWT","kid":"k\"1"}"#)
        #expect(jws.header.algorithm == "RS256")
        #expect(jws.header.type == "JWT")
        #expect(jws.header.keyID == #"k"1"#)
        let lastDot = try #require(token.lastIndex(of: "."))
        #expect(jws.signingInput == Array(token[..<lastDot].utf8))
        #expect(key.publicKey.verifyRS256(signature: jws.signature, message: jws.signingInput))
        let withoutKeyID = try CompactJWS.signRS256(payload: [], keyID: nil, key: key)
        #expect(try CompactJWS.decode(withoutKeyID).header.keyID == nil)
    }

    @Test func emptyPayloadIsAValidJWS() throws {
        let key = try #require(TestKeys.provider)
        let token = try CompactJWS.signRS256(payload: [], keyID: "k1", key: key)
        #expect(token.split(separator: ".", omittingEmptySubsequences: false)[1].isEmpty)
        let jws = try CompactJWS.verifyRS256(token, keys: JWKS(keys: [key.publicJWK(keyID: "k1")]))
        #expect(jws.payload.isEmpty)
        #expect(throws: JOSEError.invalidJSON) { try jws.payloadJSON() }
    }

    @Test func decodeErrorsNameTheBrokenRule() throws {
        let key = try #require(TestKeys.provider)
        let good = try CompactJWS.signRS256(payload: Array("{}".utf8), keyID: "k1", key: key)
        let parts = good.split(separator: ".").map(String.init)
        #expect(throws: JOSEError.malformedJWS) { try CompactJWS.decode(good + ".") }
        #expect(throws: JOSEError.malformedJWS) { try CompactJWS.decode(parts[0] + "." + parts[1]) }
        #expect(throws: JOSEError.malformedJWS) { try CompactJWS.decode("." + parts[1] + "." + parts[2]) }
        #expect(throws: JOSEError.malformedJWS) { try CompactJWS.decode(parts[0] + "." + parts[1] + ".") }
        #expect(throws: JOSEError.malformedJWS) { try CompactJWS.decode("") }
        #expect(throws: JOSEError.malformedJWS) { try CompactJWS.decode("..") }
        #expect(throws: JOSEError.invalidBase64URL) { try CompactJWS.decode(parts[0] + "=." + parts[1] + "." + parts[2]) }
        #expect(throws: JOSEError.tooLarge) { try CompactJWS.decode(String(repeating: "A", count: CompactJWS.maximumLength + 1)) }
        let crit = try CompactJWS.signRS256(headerJSON: Array(#"{"alg":"RS256","crit":["b64"],"b64":false}"#.utf8), payload: [], key: key)
        #expect(throws: JOSEError.criticalHeader) { try CompactJWS.decode(crit) }
        let duplicate = try CompactJWS.signRS256(headerJSON: Array(#"{"alg":"RS256","alg":"RS256"}"#.utf8), payload: [], key: key)
        #expect(throws: JOSEError.duplicateMember) { try CompactJWS.decode(duplicate) }
        let typNumber = try CompactJWS.signRS256(headerJSON: Array(#"{"alg":"RS256","typ":1}"#.utf8), payload: [], key: key)
        #expect(throws: JOSEError.invalidHeader) { try CompactJWS.decode(typNumber) }
    }

    @Test func reencodedJSONForDisplay() throws {
        let key = try #require(TestKeys.provider)
        let token = try CompactJWS.signRS256(
            headerJSON: Array(#"{ "alg" : "RS256", "kid":"k1" }"#.utf8), payload: Array(#"{"sub":"a","exp":1800000000}"#.utf8),
            key: key)
        let jws = try CompactJWS.decode(token)
        #expect(jws.headerJSON == #"{"alg":"RS256","kid":"k1"}"#)
        #expect(try jws.payloadJSON() == #"{"sub":"a","exp":1800000000}"#)
    }
}
