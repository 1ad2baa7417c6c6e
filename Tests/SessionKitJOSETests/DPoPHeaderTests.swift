import Testing

@testable import SessionKitJOSE

/// The DPoP header fields a server sends: `DPoP-Nonce` (RFC 9449 §8) and `WWW-Authenticate`
/// (RFC 9110 §11.6.1, RFC 9449 §7.1).
@Suite struct DPoPHeaderTests {
    @Test func aNonceOfTheRFCGrammarIsAccepted() throws {
        #expect(try DPoPNonce(headerValue: "eyJ7S_zG.eyJH0-Z.HX4w-7v").value == "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        #expect(try DPoPNonce(headerValue: " \tabc!#[]^~ ").value == "abc!#[]^~")
    }

    @Test func aNonceOutsideTheGrammarIsRefused() {
        for value in ["", "   ", "a b", "a\"b", "a\\b", "caf\u{E9}", "a\u{7F}", "a\nb"] {
            #expect(throws: DPoPHeaderError.malformed) { try DPoPNonce(headerValue: value) }
        }
        #expect(throws: DPoPHeaderError.tooLong) {
            try DPoPNonce(headerValue: String(repeating: "n", count: DPoPNonce.maximumLength + 1))
        }
    }

    @Test func aNonceRendersNothingOfItself() throws {
        let nonce = try DPoPNonce(headerValue: "secret-nonce")
        #expect(!"\(nonce)".contains("secret-nonce"))
        #expect(!String(reflecting: nonce).contains("secret-nonce"))
        var dumped = ""
        dump(nonce, to: &dumped)
        #expect(!dumped.contains("secret-nonce"))
    }

    /// RFC 9449 §7.1's example challenge.
    @Test func theRFCsUseDPoPNonceChallengeParses() throws {
        let challenges = try AuthenticationChallenge.parse(
            #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#)
        #expect(challenges.count == 1)
        #expect(challenges[0].hasScheme("dpop"))
        #expect(challenges[0].parameter("ERROR") == "use_dpop_nonce")
        #expect(challenges[0].parameter("error_description") == "Resource server requires nonce in DPoP proof")
    }

    @Test func severalChallengesWithParametersAndToken68AreSplitCorrectly() throws {
        let challenges = try AuthenticationChallenge.parse(
            #"Basic realm="a, b", DPoP algs="ES256 PS256" ,error=invalid_token, Negotiate abc+/=="#
                + #", Bearer, Newauth"#)
        #expect(challenges.map(\.scheme) == ["Basic", "DPoP", "Negotiate", "Bearer", "Newauth"])
        #expect(challenges[0].parameter("realm") == "a, b")
        #expect(challenges[1].parameter("algs") == "ES256 PS256")
        #expect(challenges[1].parameter("error") == "invalid_token")
        #expect(challenges[2].token68 == "abc+/==")
        #expect(challenges[3].parameters.isEmpty && challenges[3].token68 == nil)
        // `name=` with nothing after it is a token68 with padding by the grammar, not a parameter.
        #expect(try AuthenticationChallenge.parse("DPoP error=")[0].token68 == "error=")
    }

    @Test func quotedPairsAreUnescapedAndSerializationRoundTrips() throws {
        let challenges = try AuthenticationChallenge.parse(#"DPoP error_description="say \"no\" \\ twice""#)
        #expect(challenges[0].parameter("error_description") == #"say "no" \ twice"#)
        #expect(try AuthenticationChallenge.parse(AuthenticationChallenge.serialize(challenges)) == challenges)
    }

    @Test func malformedFieldsAreRefused() {
        for value in ["", ",", #"DPoP error="unterminated"#, "DPoP error=a b=c", "=x", #"DPoP a="\"#, "DPoP a=\"\u{1}\""] {
            #expect(throws: DPoPHeaderError.self) { try AuthenticationChallenge.parse(value) }
        }
        let many = "DPoP " + (0...AuthenticationChallenge.maximumParameterCount).map { "p\($0)=v" }.joined(separator: ",")
        #expect(throws: DPoPHeaderError.tooLong) { try AuthenticationChallenge.parse(many) }
        #expect(throws: DPoPHeaderError.tooLong) {
            try AuthenticationChallenge.parse("DPoP a=" + String(repeating: "b", count: AuthenticationChallenge.maximumFieldLength))
        }
    }
}
