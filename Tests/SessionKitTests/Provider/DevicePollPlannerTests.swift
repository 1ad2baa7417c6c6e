import Foundation
import Testing

@testable import SessionKit

/// The device grant's poll planner (RFC 8628 §3.5), fed one answer per line like a script.
@Suite struct DevicePollPlannerTests {
    private static let tokens = TokenResponse(accessToken: Secret("AT"), refreshToken: Secret("RT"), idToken: Secret("h.p.s"))

    private func planner(interval: Double = 5, expiresIn: Double = 600) -> DevicePollPlanner {
        DevicePollPlanner(
            DeviceAuthorization(
                deviceCode: Secret("dc"), userCode: "WDJB-MJHT", verificationURI: URL(string: "https://id.example.com/device")!,
                expiresIn: expiresIn, interval: interval))
    }

    @Test func pendingPollsAtTheIntervalUntilApproved() {
        var planner = planner()
        #expect(planner.firstStep == .poll(after: .seconds(5)))
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(5)) == .poll(after: .seconds(5)))
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(10)) == .poll(after: .seconds(5)))
        #expect(planner.next(after: .tokens(Self.tokens), elapsed: .seconds(15)) == .finished(Self.tokens))
        #expect(planner.answerCount == 3)
        // Finished is final: a stray late answer changes nothing.
        #expect(planner.next(after: .accessDenied, elapsed: .seconds(16)) == .finished(Self.tokens))
        #expect(planner.answerCount == 3)
    }

    @Test func slowDownAddsFiveSecondsForEveryLaterPoll() {
        var planner = planner()
        #expect(planner.next(after: .slowDown, elapsed: .seconds(5)) == .poll(after: .seconds(10)))
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(15)) == .poll(after: .seconds(10)))
        #expect(planner.next(after: .slowDown, elapsed: .seconds(25)) == .poll(after: .seconds(15)))
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(40)) == .poll(after: .seconds(15)))
        #expect(planner.interval == .seconds(15))
    }

    @Test func theDefaultIntervalIsFiveSecondsAndNeverUnderOne() throws {
        let decoded = try DeviceAuthorization(
            decoding: Data(#"{"device_code":"d","user_code":"u","verification_uri":"https://x.example/d","expires_in":300}"#.utf8))
        #expect(DevicePollPlanner(decoded).firstStep == .poll(after: .seconds(5)))
        #expect(planner(interval: 0).firstStep == .poll(after: .seconds(1)))
        #expect(planner(interval: 2.5).firstStep == .poll(after: .milliseconds(2500)))
    }

    @Test func deniedAndExpiredEndPolling() {
        var denied = planner()
        #expect(denied.next(after: .authorizationPending, elapsed: .seconds(5)) == .poll(after: .seconds(5)))
        #expect(denied.next(after: .accessDenied, elapsed: .seconds(10)) == .failed(.accessDenied))
        #expect(denied.next(after: .authorizationPending, elapsed: .seconds(15)) == .failed(.accessDenied))
        var expired = planner()
        #expect(expired.next(after: .expiredToken, elapsed: .seconds(5)) == .failed(.expired))
    }

    @Test func noPollIsPlannedAtOrPastExpiry() {
        var planner = planner(interval: 5, expiresIn: 20)
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(5)) == .poll(after: .seconds(5)))
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(14)) == .poll(after: .seconds(5)))
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(15)) == .failed(.expired))
        #expect(self.planner(interval: 5, expiresIn: 5).firstStep == .failed(.expired))
        // slow_down can push the next poll past expiry too.
        var slowed = self.planner(interval: 5, expiresIn: 30)
        #expect(slowed.next(after: .slowDown, elapsed: .seconds(21)) == .failed(.expired))
    }

    @Test func tokensAreTakenEvenWhenTheLocalEstimateSaysExpired() {
        var planner = planner(interval: 5, expiresIn: 20)
        #expect(planner.next(after: .tokens(Self.tokens), elapsed: .seconds(25)) == .finished(Self.tokens))
    }

    @Test func transientFailuresDoubleTheWaitAndRecover() {
        var planner = planner()
        #expect(planner.next(after: .transientFailure(retryAfter: nil), elapsed: .seconds(5)) == .poll(after: .seconds(10)))
        #expect(planner.next(after: .transientFailure(retryAfter: nil), elapsed: .seconds(15)) == .poll(after: .seconds(20)))
        #expect(planner.next(after: .transientFailure(retryAfter: nil), elapsed: .seconds(35)) == .poll(after: .seconds(40)))
        #expect(planner.next(after: .transientFailure(retryAfter: nil), elapsed: .seconds(75)) == .poll(after: .seconds(60)))
        #expect(planner.next(after: .transientFailure(retryAfter: nil), elapsed: .seconds(135)) == .poll(after: .seconds(60)))
        #expect(planner.consecutiveTransientFailures == 5)
        // The interval itself is unchanged: the next real answer polls at it again.
        #expect(planner.next(after: .authorizationPending, elapsed: .seconds(195)) == .poll(after: .seconds(5)))
        #expect(planner.consecutiveTransientFailures == 0)
    }

    @Test func retryAfterIsHonouredWhenLonger() {
        var planner = planner()
        #expect(planner.next(after: .transientFailure(retryAfter: .seconds(30)), elapsed: .seconds(5)) == .poll(after: .seconds(30)))
        #expect(planner.next(after: .transientFailure(retryAfter: .seconds(1)), elapsed: .seconds(35)) == .poll(after: .seconds(20)))
    }

    @Test func aRejectionOrCancellationEndsPolling() {
        let error = ProviderError.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")
        var rejected = planner()
        #expect(rejected.next(after: .rejected(error), elapsed: .seconds(5)) == .failed(.rejected(error)))
        #expect(DevicePollFailure.rejected(error).description == "rejected (400 invalid_grant)")
        var cancelled = planner()
        #expect(cancelled.next(after: .cancelled, elapsed: .seconds(5)) == .failed(.cancelled))
        #expect([DevicePollFailure.accessDenied, .expired, .cancelled].map(\.code) == ["access_denied", "expired_token", "cancelled"])
    }

    private static func http(_ status: Int, _ code: String?, retryAfter: Double? = nil) -> ProviderError {
        .http(status: status, error: code, retryAfterSeconds: retryAfter, excerpt: "")
    }

    @Test(arguments: [
        (http(400, "authorization_pending"), DevicePollAnswer.authorizationPending),
        (http(400, "slow_down"), .slowDown),
        (http(400, "access_denied"), .accessDenied),
        (http(400, "expired_token"), .expiredToken),
        (http(400, "invalid_grant"), .rejected(http(400, "invalid_grant"))),
        (http(401, "invalid_client"), .rejected(http(401, "invalid_client"))),
        (http(400, nil), .rejected(http(400, nil))),
        (http(503, "authorization_pending"), .transientFailure(retryAfter: nil)),
        (http(429, nil, retryAfter: 12), .transientFailure(retryAfter: .seconds(12))),
        (ProviderError.transport(.timedOut), .transientFailure(retryAfter: nil)),
        (ProviderError.transport(.connectionFailed("refused")), .transientFailure(retryAfter: nil)),
        (ProviderError.invalidResponse("token response does not decode"), .transientFailure(retryAfter: nil)),
        (ProviderError.transport(.cancelled), .cancelled),
    ])
    func answersAreClassified(_ error: ProviderError, _ expected: DevicePollAnswer) {
        #expect(DevicePollAnswer(.failure(error)) == expected)
    }

    @Test func aTokenResponseIsAnApproval() {
        #expect(DevicePollAnswer(.success(Self.tokens)) == .tokens(Self.tokens))
    }
}
