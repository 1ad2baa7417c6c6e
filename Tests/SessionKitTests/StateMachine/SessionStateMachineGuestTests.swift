import Foundation
import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Guest session scripts: the bootstrap, the key's renewal, a sign-in from a guest, the guest's
    /// end, and a relaunch.
    @Suite struct SessionStateMachineGuestTests {
        typealias Script = MachineScript

        static let unavailable = SessionError.guestBootstrapFailed(.unavailable(status: 503, retryAfter: nil))
        static let refused = SessionError.guestBootstrapFailed(.invalidDeviceSecret)

        // MARK: - Starting

        @Test func startingBootstrapsThroughVerifyingToAnActiveGuest() {
            var m = Script.makeSignedOut()
            #expect(
                m.startGuest(waiter: 1) == [
                    .transition(.signedOut, .verifying, .guestSessionRequested),
                    .bootstrapGuest(generation: 1),
                ])
            let key = Script.guestTokens("G")
            #expect(
                m.guestBootstrapped(key) == [
                    .transition(.verifying, .active, .guestStarted(subject: "guest-1", startedOver: false)),
                    .resume([1], .tokens(key)),
                ])
            #expect(m.activeTokens == key)
        }

        @Test func concurrentStartsShareOneBootstrap() {
            var m = Script.makeSignedOut()
            _ = m.startGuest(waiter: 1)
            #expect(m.startGuest(waiter: 2) == [])
            #expect(m.startGuest(waiter: 3) == [])
            #expect(m.waiting == [1, 2, 3])
            let key = Script.guestTokens("G")
            #expect(m.guestBootstrapped(key).last == .resume([1, 2, 3], .tokens(key)))
        }

        @Test func aFreshBootstrapAfterARefusedSecretSaysItIsANewAnonymousUser() {
            var m = Script.makeGuestBootstrapping()
            let key = Script.guestTokens("G", subject: "guest-7")
            #expect(
                m.guestBootstrapped(key, startedOver: true).first
                    == .transition(.verifying, .active, .guestStarted(subject: "guest-7", startedOver: true)))
        }

        @Test func aFailedBootstrapLeavesTheSessionSignedOutWithTheTypedError() {
            var m = Script.makeGuestBootstrapping()
            #expect(
                m.guestBootstrapFailed(Self.refused) == [
                    .transition(
                        .verifying, .signedOut, .guestBootstrapFailed(Self.refused)),
                    .resume([Script.signInCaller], .failed(Self.refused)),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
        }

        @Test func aKeyArrivingAfterSignOutIsDiscarded() {
            var m = Script.makeGuestBootstrapping()
            #expect(
                m.signOut(waiter: 1) == [
                    .transition(.verifying, .signedOut, .guestSignOutRequested),
                    .resetGuestCredential,
                    .resume([Script.signInCaller], .failed(.cancelled)),
                    .resume([1], .done),
                ])
            #expect(m.guestBootstrapped(Script.guestTokens("G"), generation: 1) == [.discardLateTokens(Script.guestTokens("G"))])
            #expect(m.stage == .signedOut)
        }

        @Test func startingInAGuestSessionReturnsIt() {
            var m = Script.makeGuestActive()
            #expect(m.startGuest(waiter: 1) == [.resume([1], .tokens(Script.guestTokens("G")))])
        }

        @Test func startingInASignedInSessionIsMisuse() {
            var m = Script.makeActive()
            #expect(m.startGuest(waiter: 1) == [.resume([1], .failed(.alreadySignedIn))])
        }

        @Test func theBootstrapIsNotACodeExchange() {
            var m = Script.makeGuestBootstrapping()
            #expect(m.exchangeSucceeded(Script.tokens("B")) == [.discardLateTokens(Script.tokens("B"))])
            #expect(m.exchangeFailed(.cancelled) == [])
            #expect(m.stage == .verifying)
        }

        // MARK: - Renewing the key

        @Test func aDueGuestKeyIsRenewedByBootstrappingAgainNotByARefresh() {
            var m = Script.makeGuestActive(expiresIn: 3600)
            #expect(m.tokenRequested(waiter: 1, at: 3000) == [.resume([1], .tokens(Script.guestTokens("G", expiresIn: 3600)))])
            let key = Script.guestTokens("G", expiresIn: 3600)
            #expect(
                m.tokenRequested(waiter: 2, at: 3550) == [
                    .transition(.active, .refreshing, .tokenDue(inSeconds: 50, callers: 1)),
                    .renewGuestKey(generation: 1, previous: key),
                ])
        }

        @Test func everyCallerWaitsForTheOneRenewal() {
            var m = Script.makeGuestRenewing(waiters: [1])
            #expect(m.tokenRequested(waiter: 2) == [])
            let joined = m.joinRefresh(waiter: 3)
            #expect(joined)
            #expect(m.waiting == [1, 2, 3])
            let renewed = Script.guestTokens("H")
            #expect(
                m.refreshSucceeded(renewed) == [
                    .transition(.refreshing, .active, .guestKeyRenewed(callers: 3, startedOver: false)),
                    .resume([1, 2, 3], .tokens(renewed)),
                ])
        }

        @Test func aRenewalThatStartedOverTellsTheAppOfTheNewAnonymousUser() {
            var m = Script.makeGuestRenewing(waiters: [1])
            let renewed = Script.guestTokens("H", subject: "guest-2")
            #expect(
                m.refreshSucceeded(renewed) == [
                    .emit(.guestStartedOver(previousSubject: "guest-1", subject: "guest-2")),
                    .transition(.refreshing, .active, .guestKeyRenewed(callers: 1, startedOver: true)),
                    .resume([1], .tokens(renewed)),
                ])
        }

        @Test func aRetriedRenewalBootstrapsAgainOnItsTimer() throws {
            var m = Script.makeGuestRenewing(waiters: [1])
            let key = Script.guestTokens("G", expiresIn: 30)
            _ = m.refreshFailed(.transient(Self.unavailable, retryIn: .seconds(2)))
            #expect(m.lastActions.contains(.resume([1], .tokens(key))))
            let timer = try #require(m.retryTimer)
            #expect(m.timerFired(timer) == [.renewGuestKey(generation: 1, attempt: 2, previous: key)])
        }

        @Test func aRefusedSecretAfterTheFreshRetryEndsTheGuestSession() {
            var m = Script.makeGuestRenewing(waiters: [1])
            #expect(
                m.refreshFailed(.permanent(Self.refused)) == [
                    .transition(
                        .refreshing, .signedOut, .guestBootstrapFailed(Self.refused)),
                    .resume([1], .failed(Self.refused)),
                ])
        }

        // MARK: - Signing in from a guest

        @Test func signingInFromAGuestGoesThroughHandoffAndKeepsTheGuest() {
            var m = Script.makeGuestActive()
            #expect(
                m.signIn(attempt: 1, waiter: 1) == [
                    .transition(.active, .handoff, .signInRequested),
                    .present(Script.attempt(1), generation: 2),
                    .startTimer(1, after: Script.handoffTimeout),
                ])
            // The guest still serves the app meanwhile.
            #expect(m.tokenRequested(waiter: 2) == [.resume([2], .tokens(Script.guestTokens("G")))])
            #expect(m.refreshRequested(waiter: 3) == [.resume([3], .failed(.signInInProgress))])
        }

        @Test func aVerifiedPromotionTellsTheAppAndOnlyThenResetsTheGuestCredential() {
            var m = Script.makeGuestSigningIn()
            #expect(m.callback().contains(.transition(.handoff, .verifying, .callbackReceived)))
            #expect(!m.lastActions.contains(.resetGuestCredential))
            let alice = Script.signedInFromGuest("A")
            #expect(
                m.exchangeSucceeded(alice) == [
                    .transition(.verifying, .active, .verified(subject: "alice")),
                    .emit(.anonymousUserPromoted(subject: "alice")),
                    .resetGuestCredential,
                    .resume([94], .tokens(alice)),
                ])
        }

        @Test func aSignInIntoAnAccountThatWasNotTheGuestIsNoPromotion() {
            var m = Script.makeGuestSigningIn()
            _ = m.callback()
            let bob = Script.signedInFromGuest("B", subject: "bob", promoted: false)
            #expect(
                m.exchangeSucceeded(bob) == [
                    .transition(.verifying, .active, .verified(subject: "bob")),
                    .resetGuestCredential,
                    .resume([94], .tokens(bob)),
                ])
        }

        @Test func aCancelledSignInReturnsToTheGuestSession() {
            var m = Script.makeGuestSigningIn()
            #expect(
                m.presenterEnded(.cancelled) == [
                    .cancelTimer(1), .cancelPresenter, .transition(.handoff, .active, .handoffCancelled),
                    .resume([94], .failed(.cancelled)),
                ])
            #expect(m.activeTokens == Script.guestTokens("G"))
        }

        @Test func aTimedOutSignInReturnsToTheGuestSession() {
            var m = Script.makeGuestSigningIn()
            #expect(m.timerFired(1).contains(.transition(.handoff, .active, .handoffTimedOut)))
            #expect(m.activeTokens == Script.guestTokens("G"))
        }

        @Test func aFailedExchangeReturnsToTheGuestSessionWithoutResettingIt() {
            var m = Script.makeGuestSigningIn()
            _ = m.callback()
            let error = SessionError.verificationFailed(.nonceMismatch)
            #expect(
                m.exchangeFailed(error) == [
                    .transition(.verifying, .active, .verificationFailed(.nonceMismatch)),
                    .resume([94], .failed(error)),
                ])
            #expect(m.activeTokens == Script.guestTokens("G"))
        }

        @Test func signingOutDuringASignInFromAGuestEndsTheGuest() {
            var m = Script.makeGuestSigningIn()
            let actions = m.signOut(waiter: 1)
            #expect(actions.contains(.transition(.handoff, .active, .handoffCancelled)))
            #expect(actions.suffix(2) == [.transition(.active, .revoking, .guestSignOutRequested), .endGuestSession(generation: 4)])
        }

        @Test func aDeviceSignInFromAGuestKeepsTheGuestUntilVerified() {
            var m = Script.makeGuestActive()
            #expect(m.deviceSignIn(waiter: 1).first == .transition(.active, .handoff, .deviceSignInRequested))
            _ = m.deviceCodeIssued()
            _ = m.devicePollTimer.map { m.timerFired($0) }
            let denied = m.devicePollAnswered(.accessDenied, at: 5)
            #expect(denied.contains { if case .transition(.handoff, .active, _) = $0 { true } else { false } })
            #expect(m.activeTokens == Script.guestTokens("G"))

            _ = m.deviceSignIn(waiter: 2)
            _ = m.deviceCodeIssued()
            _ = m.devicePollTimer.map { m.timerFired($0) }
            _ = m.devicePollAnswered(.tokens(TokenResponse(accessToken: Secret("device-access"))), at: 5)
            #expect(m.stage == .verifying)
            let alice = Script.signedInFromGuest("A")
            #expect(m.exchangeSucceeded(alice).contains(.resetGuestCredential))
            #expect(m.activeTokens == alice)
        }

        @Test func aSignInWhileTheKeyIsBeingRenewedIsRefused() {
            var m = Script.makeGuestRenewing()
            #expect(m.signIn(attempt: 2, waiter: 5) == [.resume([5], .failed(.signInInProgress))])
        }

        // MARK: - Ending

        @Test func signingAGuestOutWipesItLocallyAndAsksTheProviderNothing() {
            var m = Script.makeGuestActive()
            #expect(m.signOut(waiter: 1) == [.transition(.active, .revoking, .guestSignOutRequested), .endGuestSession(generation: 2)])
            // No revocation is in flight: a server answer cannot be this stage's.
            #expect(m.serverConfirmed() == [])
            #expect(m.guestSessionEnded() == [.transition(.revoking, .signedOut, .guestSessionEnded), .resume([1], .done)])
            #expect(m.generation == 3)
        }

        @Test func signingOutDuringARenewalAbandonsIt() {
            var m = Script.makeGuestRenewing(waiters: [1])
            #expect(
                m.signOut(waiter: 2) == [
                    .cancelRefresh, .resume([1], .failed(.signOutInProgress)),
                    .transition(.refreshing, .revoking, .guestSignOutRequested), .endGuestSession(generation: 2),
                ])
            #expect(m.refreshSucceeded(Script.guestTokens("H"), generation: 1) == [.discardLateTokens(Script.guestTokens("H"))])
        }

        @Test func deletingAGuestEndsItAndAsksTheAppToDeleteItsData() {
            var m = Script.makeGuestActive()
            #expect(
                m.deleteAccount(waiter: 1) == [
                    .transition(.active, .disconnecting, .guestSignOutRequested), .endGuestSession(generation: 2),
                ])
            #expect(
                m.guestSessionEnded() == [
                    .transition(.disconnecting, .signedOut, .guestSessionEnded), .emit(.deleteUserData(subject: "guest-1")),
                    .resume([1], .done),
                ])
        }

        @Test func aWipeThatFailedKeepsTheGuestSession() {
            var m = Script.makeGuestActive()
            _ = m.signOut(waiter: 1)
            #expect(
                m.guestSessionEnded(.failure(.noSpace)) == [
                    .transition(.revoking, .active, .storageFailed(.noSpace)),
                    .resume([1], .failed(.storage(.noSpace))),
                ])
            #expect(m.activeTokens == Script.guestTokens("G"))
        }

        @Test func aGuestWipeDoesNotEndAnotherSessionsSignOut() {
            var m = Script.makeRevoking()
            #expect(m.guestSessionEnded() == [])
            #expect(m.stage == .revoking)
        }

        // MARK: - Relaunch

        @Test func aStoredGuestSessionIsRestoredOfflineFirst() {
            var m = Script.makeSignedOut()
            let key = Script.guestTokens("G")
            #expect(
                m.restore(.session(key), waiter: 1) == [
                    .transition(.signedOut, .active, .restored(subject: "guest-1")), .resume([1], .restored(.active)),
                ])
        }

        @Test func aStoredGuestSessionWhoseKeyIsDueIsRenewedInTheBackground() {
            var m = Script.makeSignedOut()
            let key = Script.guestTokens("G", expiresIn: 30)
            #expect(
                m.restore(.session(key), waiter: 1) == [
                    .transition(.signedOut, .refreshing, .restoredDue(subject: "guest-1", inSeconds: 30)),
                    .resume([1], .restored(.refreshing)),
                    .renewGuestKey(generation: 1, previous: key),
                ])
        }

        @Test func aStoredGuestSessionWhoseKeyExpiredIsRenewedNotEnded() {
            var m = Script.makeSignedOut()
            let key = Script.guestTokens("G", expiresIn: -10)
            #expect(m.restore(.session(key), waiter: 1).last == .renewGuestKey(generation: 1, previous: key))
            #expect(m.stage == .refreshing)
        }
    }
}
