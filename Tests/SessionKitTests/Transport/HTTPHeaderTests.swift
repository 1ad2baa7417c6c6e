import Foundation
import Testing

@testable import SessionKit

/// Header field names match case-insensitively, as RFC 9110 §5.1 says, and only ASCII letters fold.
struct HTTPHeaderTests {
    private static let request = HTTPRequest(
        method: "POST", url: URL(string: "https://issuer.example/token")!,
        headers: [("Content-Type", "application/x-www-form-urlencoded"), ("X-Ärger", "umlaut"), ("X-@", "at")])

    @Test func namesMatchWhateverTheCaseOfTheirLetters() {
        #expect(Self.request.header("content-type") == "application/x-www-form-urlencoded")
        #expect(Self.request.header("CONTENT-TYPE") == "application/x-www-form-urlencoded")
        #expect(Self.request.header("Content-Length") == nil)
        #expect(Self.request.header("Content-Typ") == nil)
    }

    @Test func onlyASCIILettersFold() {
        // `@` and a backtick differ only in the bit that folds letters; neither is a letter.
        #expect(Self.request.header("X-@") == "at")
        #expect(Self.request.header("x-`") == nil)
        // A non-ASCII name (not a token) must match byte for byte.
        #expect(Self.request.header("X-Ärger") == "umlaut")
        #expect(Self.request.header("x-ärger") == nil)
    }
}
