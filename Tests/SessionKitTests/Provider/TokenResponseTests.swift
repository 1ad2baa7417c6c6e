import Foundation
import SessionKit
import Testing

@Suite struct TokenResponseTests {
    private func decode(_ json: String) throws(ProviderError) -> TokenResponse {
        try TokenResponse(decoding: Data(json.utf8))
    }

    private func expectInvalid(_ json: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let response = try decode(json)
            Issue.record("accepted \(response)", sourceLocation: sourceLocation)
        } catch {
            guard case .invalidResponse = error else {
                Issue.record("expected invalidResponse, got \(error)", sourceLocation: sourceLocation)
                return
            }
            // The rejection never repeats a token value from the body.
            #expect(!"\(error)".contains("AT-secret"), sourceLocation: sourceLocation)
            #expect(!error.summary.contains("RT-secret"), sourceLocation: sourceLocation)
        }
    }

    @Test func aCompleteResponseDecodes() throws {
        let response = try decode(
            #"{"access_token":"AT-secret","token_type":"Bearer","expires_in":3600,"refresh_token":"RT-secret","id_token":"a.b.c","scope":"openid email"}"#
        )
        #expect(response.accessToken.value == "AT-secret")
        #expect(response.tokenType == "Bearer")
        #expect(response.expiresIn == 3600)
        #expect(response.refreshToken?.value == "RT-secret")
        #expect(response.idToken?.value == "a.b.c")
        #expect(response.scope == "openid email")
    }

    @Test func theMinimalResponseDecodesWithOptionalsAbsent() throws {
        let response = try decode(#"{"access_token":"AT-secret","token_type":"Bearer"}"#)
        #expect(response == TokenResponse(accessToken: Secret("AT-secret")))
        #expect(response.expiresIn == nil && response.refreshToken == nil && response.idToken == nil && response.scope == nil)
    }

    @Test(arguments: ["Bearer", "bearer", "BEARER", "bEaReR"])
    func tokenTypeBearerIsCaseInsensitive(_ type: String) throws {
        #expect(try decode(#"{"access_token":"AT-secret","token_type":"\#(type)"}"#).tokenType == type)
    }

    @Test(arguments: [0.0, 1, 3599.5, 1e9])
    func expiresInAcceptsNonNegativeNumbers(_ seconds: Double) throws {
        #expect(try decode(#"{"access_token":"AT-secret","token_type":"Bearer","expires_in":\#(seconds)}"#).expiresIn == seconds)
    }

    @Test func unknownMembersAreIgnored() throws {
        let response = try decode(
            #"{"access_token":"AT-secret","token_type":"Bearer","x_extra":{"nested":[1,true,null]},"expires_at":"soon"}"#)
        #expect(response.accessToken.value == "AT-secret")
    }

    @Test(arguments: [
        #"{"token_type":"Bearer"}"#,
        #"{"access_token":"","token_type":"Bearer"}"#,
        #"{"access_token":null,"token_type":"Bearer"}"#,
        #"{"access_token":42,"token_type":"Bearer"}"#,
        #"{"access_token":["AT-secret"],"token_type":"Bearer"}"#,
        #"{"access_token":true,"token_type":"Bearer"}"#,
    ])
    func accessTokenMustBeANonEmptyString(_ json: String) {
        expectInvalid(json)
    }

    @Test(arguments: [
        #"{"access_token":"AT-secret"}"#,
        #"{"access_token":"AT-secret","token_type":""}"#,
        #"{"access_token":"AT-secret","token_type":"mac"}"#,
        #"{"access_token":"AT-secret","token_type":"DPoP "}"#,
        #"{"access_token":"AT-secret","token_type":"Bearer "}"#,
        #"{"access_token":"AT-secret","token_type":1}"#,
        #"{"access_token":"AT-secret","token_type":null}"#,
    ])
    func tokenTypeMustBeBearerOrDPoP(_ json: String) {
        expectInvalid(json)
    }

    /// A sender-constrained token says `DPoP` (RFC 9449 §5); whether that is acceptable is the
    /// DPoP middleware's decision, not the decoder's.
    @Test(arguments: ["DPoP", "dpop", "Bearer", "bearer"])
    func bearerAndDPoPDecode(_ tokenType: String) throws {
        let response = try TokenResponse(decoding: Data(#"{"access_token":"AT-secret","token_type":"\#(tokenType)"}"#.utf8))
        #expect(response.tokenType == tokenType)
    }

    @Test(arguments: [#""3600""#, "true", "false", "-1", "-0.5", "[3600]", #"{"s":1}"#, "1e400"])
    func expiresInMustBeANonNegativeFiniteNumber(_ value: String) {
        expectInvalid(#"{"access_token":"AT-secret","token_type":"Bearer","expires_in":\#(value)}"#)
    }

    @Test(arguments: ["refresh_token", "id_token"])
    func optionalTokensMustBeNonEmptyStringsWhenPresent(_ member: String) {
        expectInvalid(#"{"access_token":"AT-secret","token_type":"Bearer","\#(member)":""}"#)
        expectInvalid(#"{"access_token":"AT-secret","token_type":"Bearer","\#(member)":7}"#)
        expectInvalid(#"{"access_token":"AT-secret","token_type":"Bearer","\#(member)":{"value":"RT-secret"}}"#)
    }

    @Test(arguments: ["access_token", "token_type", "refresh_token"])
    func aMemberNamedTwiceIsRefusedWhateverItsValues(_ member: String) {
        // Which of the two a parser keeps is not defined (RFC 8259 §4); neither is used.
        var members = [#""access_token":"AT-secret""#, #""token_type":"Bearer""#, #""refresh_token":"RT-secret""#]
        members.append(members.first { $0.hasPrefix("\"\(member)\"") }!)
        expectInvalid("{" + members.joined(separator: ",") + "}")
    }

    @Test func nullOptionalMembersAreAbsent() throws {
        let response = try decode(
            #"{"access_token":"AT-secret","token_type":"Bearer","expires_in":null,"refresh_token":null,"id_token":null,"scope":null}"#)
        #expect(response == TokenResponse(accessToken: Secret("AT-secret")))
    }

    @Test func scopeMustBeAString() {
        expectInvalid(#"{"access_token":"AT-secret","token_type":"Bearer","scope":["openid"]}"#)
    }

    @Test(arguments: [
        "", " ", "null", "[]", #"["access_token"]"#, #""AT-secret""#, "42", "true",
        #"{"access_token":"AT-secret","token_type":"Bearer""#,
        #"{"access_token":"AT-secret","#,
        "{", "<html>502 Bad Gateway</html>",
    ])
    func aBodyThatIsNotAnObjectOrIsTruncatedIsInvalid(_ json: String) {
        expectInvalid(json)
    }

    @Test func invalidUTF8IsInvalid() {
        #expect(throws: ProviderError.self) { try TokenResponse(decoding: Data([0x7B, 0xFF, 0xFE, 0x7D])) }
    }

    @Test func anInvalidResponseIsTransientAndItsTextHoldsNoToken() throws {
        do {
            _ = try decode(#"{"access_token":"AT-secret","token_type":"Bearer","refresh_token":""}"#)
            Issue.record("an empty refresh_token was accepted")
        } catch {
            #expect(error.isTransient)
            #expect(error.status == nil && error.oauthError == nil && error.retryAfter == nil)
            #expect(!error.summary.contains("AT-secret"))
        }
    }
}
