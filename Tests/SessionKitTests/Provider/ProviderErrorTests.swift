import Foundation
import Testing

@testable import SessionKit

@Suite struct ProviderErrorTests {
    private static let now = Date(timeIntervalSince1970: 1_767_225_600)  // Thu, 01 Jan 2026 00:00:00 GMT

    private func error(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> ProviderError {
        ProviderError.fromResponse(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)), now: Self.now)
    }

    // MARK: Classification

    @Test(arguments: [TransportError.connectionFailed("refused"), .timedOut, .responseTooLarge(limit: 1024)])
    func transportFailuresAreTransient(_ failure: TransportError) {
        #expect(ProviderError.transport(failure).isTransient)
    }

    @Test func aCancelledRequestIsNotRetried() {
        #expect(!ProviderError.transport(.cancelled).isTransient)
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504, 599])
    func timeoutsRateLimitsAndServerErrorsAreTransient(_ status: Int) {
        #expect(error(status).isTransient)
        #expect(error(status, #"{"error":"temporarily_unavailable"}"#).isTransient)
    }

    @Test(
        arguments: [
            (400, #"{"error":"invalid_grant","error_description":"refresh token revoked"}"#, "invalid_grant"),
            (400, #"{"error":"invalid_request"}"#, "invalid_request"),
            (401, #"{"error":"invalid_client"}"#, "invalid_client"),
            (400, #"{"error":"invalid_client"}"#, "invalid_client"),
            (400, "", nil),
            (401, "", nil),
            (403, #"{"error":"forbidden"}"#, "forbidden"),
            (404, "<html>not found</html>", nil),
            (409, #"{"error":"conflict"}"#, "conflict"),
        ] as [(Int, String, String?)])
    func clientErrorsArePermanentAndKeepTheOAuthCode(_ status: Int, _ body: String, _ code: String?) {
        let error = error(status, body)
        #expect(!error.isTransient)
        #expect(error.status == status)
        #expect(error.oauthError == code)
    }

    @Test func anUndecodableSuccessIsTransient() {
        #expect(ProviderError.invalidResponse("JWKS does not decode").isTransient)
    }

    @Test func theOAuthCodeMustBeAStringAndIsBounded() {
        #expect(error(400, #"{"error":42}"#).oauthError == nil)
        #expect(error(400, #"["invalid_grant"]"#).oauthError == nil)
        #expect(error(400, #"{"error":"\#(String(repeating: "x", count: 500))"}"#).oauthError?.count == 64)
    }

    // MARK: Retry-After

    @Test(arguments: [("0", 0.0), ("1", 1), ("120", 120), (" 30 ", 30), ("86400", 86400)])
    func retryAfterAsDeltaSeconds(_ value: String, _ seconds: Double) {
        let error = error(503, headers: ["Retry-After": value])
        #expect(ProviderError.retryAfterSeconds(value, now: Self.now) == seconds)
        #expect(error.retryAfter == .seconds(seconds))
    }

    @Test func retryAfterAsAnHTTPDateIsRelativeToTheInjectedNow() {
        #expect(ProviderError.retryAfterSeconds("Thu, 01 Jan 2026 00:01:30 GMT", now: Self.now) == 90)
        #expect(ProviderError.retryAfterSeconds("Fri, 02 Jan 2026 00:00:00 GMT", now: Self.now) == 86400)
        // The same header read an hour later asks for no wait at all.
        #expect(ProviderError.retryAfterSeconds("Thu, 01 Jan 2026 00:01:30 GMT", now: Self.now.addingTimeInterval(3600)) == 0)
        let error = ProviderError.fromResponse(
            HTTPResponse(status: 429, headers: ["retry-after": "Thu, 01 Jan 2026 00:00:45 GMT"]), now: Self.now)
        #expect(error.retryAfter == .seconds(45))
        #expect(error.isTransient)
    }

    @Test(arguments: ["", "  ", "soon", "-5", "1.5", "0x10", "Thu, 01 Jan 2026 25:00:00 GMT", "2026-01-01T00:01:00Z"])
    func anUnreadableRetryAfterIsIgnored(_ value: String) {
        #expect(ProviderError.retryAfterSeconds(value, now: Self.now) == nil)
        #expect(error(503, headers: ["Retry-After": value]).retryAfter == nil)
    }

    @Test func noRetryAfterWithoutTheHeaderOrWithoutAResponse() {
        #expect(error(503).retryAfter == nil)
        #expect(ProviderError.transport(.timedOut).retryAfter == nil)
        #expect(ProviderError.invalidResponse("x").retryAfter == nil)
    }

    @Test(arguments: ["Thursday, 01-Jan-26 00:01:30 GMT", "Thu Jan  1 00:01:30 2026"])
    func retryAfterInTheObsoleteHTTPDateFormats(_ value: String) {
        #expect(ProviderError.retryAfterSeconds(value, now: Self.now) == 90)
    }

    @Test func anEnormousDeltaSecondsRetryAfterDoesNotCrash() async {
        // An absurd Retry-After must be clamped, never trap converting to a Duration.
        await #expect(processExitsWith: .success) {
            let error = ProviderError.fromResponse(
                HTTPResponse(status: 503, headers: ["Retry-After": "9999999999999999"]), now: Date(timeIntervalSince1970: 0))
            _ = error.retryAfter
        }
    }

    // MARK: Bodies never carry secrets

    @Test func scrubKeepsShortWordsAndRedactsTokenLikeRuns() {
        #expect(ProviderError.scrub("invalid request: bad code") == "invalid request: bad code")
        #expect(ProviderError.scrub("token abcdefghijklmno! ok") == "token abcdefghijklmno! ok")  // 15 characters stay
        #expect(ProviderError.scrub("token abcdefghijklmnop! ok") == "token <redacted>! ok")  // 16 are redacted
        #expect(ProviderError.scrub("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln") == "<redacted>")
        #expect(ProviderError.scrub("a+b/c=d-e_f.g~h0123") == "<redacted>")
        #expect(ProviderError.scrub("line one\nline two\r\n") == "line one line two ")  // CRLF is one Character
    }

    @Test func scrubTruncatesTo200Characters() {
        let long = String(repeating: "ab cd ", count: 100)
        let scrubbed = ProviderError.scrub(long)
        #expect(scrubbed.count == 200)
        #expect(scrubbed == String(long.prefix(200)))
    }

    @Test func aBodyEchoingATokenNeverSurvivesInTheError() {
        let token = "rt_Zx8+q/Lm3K9pQ2vW7yT0uN4bE6cH1jA5=="
        let bodies = [
            #"{"error":"invalid_grant","error_description":"refresh token \#(token) is revoked"}"#,
            "<html><body>bad token: \(token)</body></html>",
            "token=\(token)&x=1",
            String(repeating: "{", count: 100) + token,
        ]
        for body in bodies {
            let error = error(400, body)
            guard case .http(_, _, _, let excerpt) = error else {
                Issue.record("expected an HTTP error")
                continue
            }
            #expect(!excerpt.contains(token))
            #expect(!excerpt.contains("Zx8+q/Lm3K9pQ2vW"))
            #expect(!"\(error)".contains(token))
            #expect(!String(reflecting: error).contains(token))
            #expect(excerpt.count <= 200)
        }
    }

    @Test func aTokenCutByTheLengthLimitLeavesNoFragment() {
        let token = "Zx8q7Lm3K9pQ2vW7yT0uN4bE6cH1jA5s"
        let body = String(repeating: " ", count: 190) + token
        #expect(!ProviderError.scrub(body).contains(String(token.prefix(10))))
    }

    @Test func theExcerptIsTakenFromAtMost512BytesAndSurvivesBrokenUTF8() {
        var body = Data(repeating: 0x20, count: 511)
        body.append(contentsOf: [0xC3, 0xA9])  // "é" cut in half by the 512-byte limit
        let error = ProviderError.fromResponse(HTTPResponse(status: 500, body: body), now: Self.now)
        guard case .http(500, nil, nil, let excerpt) = error else {
            Issue.record("expected HTTP 500, got \(error)")
            return
        }
        #expect(excerpt.count == 200)
    }

    @Test func summaryCarriesNoBody() {
        let body = #"{"error":"invalid_grant","error_description":"the grant for user alice@example.com was revoked"}"#
        #expect(error(400, body).summary == "400 invalid_grant")
        #expect(error(502, "<html>upstream exploded: secret-ish details</html>").summary == "HTTP 502")
        #expect(ProviderError.transport(.connectionFailed("refused by 10.0.0.1")).summary == "connection failed")
        #expect(ProviderError.transport(.timedOut).summary == "timed out")
        #expect(ProviderError.transport(.responseTooLarge(limit: 10)).summary == "response too large")
        #expect(ProviderError.transport(.cancelled).summary == "cancelled")
        #expect(ProviderError.invalidResponse("token_type is not Bearer").summary == "invalid response: token_type is not Bearer")
    }
}
