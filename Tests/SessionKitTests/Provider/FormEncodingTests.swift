import Foundation
import Testing

@testable import SessionKit

@Suite struct FormEncodingTests {
    private static let unreservedASCII = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    @Test func onlyUnreservedCharactersStayAsTheyAre() {
        for byte in UInt8(0x20)...UInt8(0x7E) {
            let character = Character(Unicode.Scalar(byte))
            let escaped = FormEncoding.escape(String(character))
            if Self.unreservedASCII.contains(character) {
                #expect(escaped == String(character))
            } else {
                #expect(escaped == String(format: "%%%02X", byte), "\(character) must be percent-encoded")
            }
        }
    }

    @Test func controlAndNonASCIICharactersAreEncodedAsUTF8Bytes() {
        #expect(FormEncoding.escape("\n\t\u{0}") == "%0A%09%00")
        #expect(FormEncoding.escape("é") == "%C3%A9")
        #expect(FormEncoding.escape("✓") == "%E2%9C%93")
        #expect(FormEncoding.escape("🔑") == "%F0%9F%94%91")
    }

    @Test(
        "unescaping agrees with Foundation's removingPercentEncoding on every kind of input",
        arguments: [
            "", "plain", "a+b", "a%20b", "%2B", "%2b", "%", "%2", "%zz", "%G1", "100%", "%C3%A9", "%E2%9C%93", "%F0%9F%94%91",
            "%C3", "%FF", "%80abc", "é+%C3%A9", "%00", "++", "%%41", "%41%42%43", "a=b", "ünï+cødé",
        ])
    func unescapingAgreesWithFoundation(_ text: String) {
        for plusIsSpace in [true, false] {
            let foundation = (plusIsSpace ? text.replacingOccurrences(of: "+", with: " ") : text).removingPercentEncoding
            #expect(FormEncoding.unescape(Substring(text), plusIsSpace: plusIsSpace) == foundation, "plusIsSpace: \(plusIsSpace)")
        }
    }

    @Test func escapingAgreesWithFoundation() {
        let samples = ["", "abc", "a b+c/d=e&f", "ünïcødé ✓ 🔑", "\n\t\u{0}", "~-._", "%", String(repeating: "x/", count: 50)]
        for sample in samples {
            #expect(FormEncoding.escape(sample) == sample.addingPercentEncoding(withAllowedCharacters: FormEncoding.unreserved))
        }
    }

    @Test func encodeJoinsFieldsInOrder() {
        let body = FormEncoding.encode([("grant_type", "refresh_token"), ("refresh_token", "a+b/c="), ("client id", "x&y")])
        #expect(String(decoding: body, as: UTF8.self) == "grant_type=refresh_token&refresh_token=a%2Bb%2Fc%3D&client%20id=x%26y")
        #expect(FormEncoding.encode([]).isEmpty)
    }

    @Test(arguments: [
        "abc+def/ghi==",
        "100%25 sure & then some",
        "a=b&c=d",
        "ünïcødé ✓ 🔑",
        "+/=%& \t\n~-._",
        "%",
        "%2B",
        "",
    ])
    func aValueSurvivesEncodeThenDecode(_ value: String) {
        let body = String(decoding: FormEncoding.encode([("token", value), ("other", "x")]), as: UTF8.self)
        #expect(!body.contains("+"), "a literal + would decode as a space")
        let decoded = FormEncoding.decode(body)
        #expect(decoded == ["token": value, "other": "x"])
    }

    @Test func aTokenWithEveryReservedCharacterSurvivesTheRoundTrip() {
        let token = (0x20...0x7E).map { String(Character(Unicode.Scalar(UInt8($0)))) }.joined() + "é✓"
        #expect(FormEncoding.decode(String(decoding: FormEncoding.encode([(token, token)]), as: UTF8.self)) == [token: token])
    }

    @Test func decodeReadsPlusAsASpaceAndEscapedPlusAsPlus() {
        #expect(FormEncoding.decode("q=a+b%2Bc&r%20s=%20") == ["q": "a b+c", "r s": " "])
    }

    @Test func theFirstOccurrenceOfADuplicateNameWins() {
        #expect(FormEncoding.decode("code=first&state=s&code=second&code=third") == ["code": "first", "state": "s"])
        #expect(FormEncoding.decode("c%6Fde=first&code=second") == ["code": "first"])
    }

    @Test func nameWithoutValueAndEmptyPairsAreHandled() {
        #expect(FormEncoding.decode("flag&&a=1&=empty&b=&") == ["flag": "", "a": "1", "": "empty", "b": ""])
        #expect(FormEncoding.decode("") == [:])
        #expect(FormEncoding.decode("a==b") == ["a": "=b"])
    }

    @Test(arguments: ["%", "%z", "%zz", "%G0", "%C3", "%FF", "%C3%28", "abc%"])
    func aMalformedEscapeDropsOnlyItsPair(_ malformed: String) {
        #expect(FormEncoding.decode("a=\(malformed)&b=ok") == ["b": "ok"])
        #expect(FormEncoding.decode("\(malformed)=x&b=ok") == ["b": "ok"])
    }

    @Test func aMalformedFirstOccurrenceStillClaimsTheName() {
        // A callback `code=%zz&code=injected` must not yield the second code: first wins.
        #expect(FormEncoding.decode("code=%zz&code=injected")["code"] == nil)
    }
}
