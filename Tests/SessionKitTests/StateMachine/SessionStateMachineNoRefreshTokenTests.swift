import Testing

@testable import SessionKit

extension StateMachineTests {
    /// A session the provider issued no refresh token for: active until its access token expires,
    /// then signed out with a typed reason; never a refresh.
    @Suite struct SessionStateMachineNoRefreshTokenTests {
        typealias Script = MachineScript

        @Test func theTokenIsHandedOutUntilItExpiresNotUntilTheLeadTime() {
            var m = Script.makeActiveWithoutRefreshToken(expiresIn: 3600)
            #expect(m.freshTokens(at: 3590) == Script.tokens("A", refreshable: false))
            #expect(m.freshTokens(at: 3600) == nil)
            #expect(
                m.tokenRequested(waiter: 1, at: 3590) == [.resume([1], .tokens(Script.tokens("A", expiresIn: 3600, refreshable: false)))])
            #expect(m.stage == .active)
        }

        @Test func afterExpiryTheSessionEndsAndAsksForSignIn() {
            var m = Script.makeActiveWithoutRefreshToken(expiresIn: 3600)
            #expect(
                m.tokenRequested(waiter: 1, at: 3600) == [
                    .transition(.active, .signedOut, .sessionExpired),
                    .resume([1], .failed(.sessionExpired)),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
        }

        @Test func anExplicitRefreshIsUnsupportedWhileTheTokenLasts() {
            var m = Script.makeActiveWithoutRefreshToken()
            #expect(m.refreshRequested(waiter: 1) == [.resume([1], .failed(.unsupported(.refreshWithoutRefreshToken)))])
            #expect(m.stage == .active)
            #expect(m.refreshRequested(waiter: 2, at: 3600).last == .resume([2], .failed(.sessionExpired)))
        }

        @Test func aRestoreWhoseAccessTokenExpiredEndsWithTheSameReason() {
            var m = Script.makeRestoring()
            #expect(
                m.refreshFailed(.permanent(.sessionExpired)) == [
                    .transition(.refreshing, .signedOut, .sessionExpired),
                    .resume([], .failed(.sessionExpired)),
                ])
        }

        @Test func aRestoreSignsInWhileTheAccessTokenLastsAndEndsAfter() {
            var lasting = Script.makeSignedOut()
            #expect(
                lasting.restore(.session(Script.tokens("S", expiresIn: 30, refreshable: false)), waiter: 1) == [
                    .transition(.signedOut, .active, .restored(subject: "alice")),
                    .resume([1], .restored(.active)),
                ])
            var expired = Script.makeSignedOut()
            #expect(
                expired.restore(.session(Script.tokens("S", expiresIn: -10, refreshable: false)), waiter: 1) == [
                    .transition(.signedOut, .signedOut, .sessionExpired),
                    .resume([1], .failed(.sessionExpired)),
                ])
            #expect(expired.stage == .signedOut)
        }

        @Test func aRefreshableSessionStillRefreshesInsideTheLeadTime() {
            var m = Script.makeActive(expiresIn: 3600)
            #expect(m.tokenRequested(waiter: 1, at: 3590).last == .refresh(generation: 1, previous: Script.tokens("A")))
        }
    }
}
