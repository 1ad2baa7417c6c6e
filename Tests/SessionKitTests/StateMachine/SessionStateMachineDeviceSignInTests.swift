import Foundation
import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Device sign-in scripts (RFC 8628): the same handoff stage with its own payload, polls on
    /// timers at the planner's intervals, `slow_down`, denial, expiry, cancellation, late answers.
    @Suite struct SessionStateMachineDeviceSignInTests {
        typealias Script = MachineScript

        static let approved = DevicePollAnswer.tokens(TokenResponse(accessToken: Secret("device-access")))

        @Test func approvedAfterASlowDown() {
            var m = Script.makeSignedOut()
            #expect(
                m.deviceSignIn(waiter: 1) == [
                    "transition(signedOut→handoff: device sign-in requested)",
                    "requestDeviceCode(gen 1)",
                    "startTimer(1, 300s)",
                ])
            #expect(m.devicePhase == "requestingCode")
            #expect(
                m.deviceCodeIssued() == [
                    "cancelTimer(1)",
                    "transition(handoff→handoff: device code issued; expires in 600s)",
                    "presentDeviceCode(USER-1, gen 1)",
                    "startTimer(2, 5s)",
                ])
            #expect(m.timerFired(2) == ["pollDeviceToken(USER-1, gen 1)"])
            #expect(m.devicePhase == "polling")
            #expect(m.devicePollAnswered(.authorizationPending, at: 5) == ["startTimer(3, 5s)"])
            #expect(m.timerFired(3) == ["pollDeviceToken(USER-1, gen 1)"])
            #expect(
                m.devicePollAnswered(.slowDown, at: 10) == [
                    "transition(handoff→handoff: device poll deferred (slow_down); next poll in 10s)",
                    "startTimer(4, 10s)",
                ])
            #expect(m.devicePollInterval == .seconds(10))
            #expect(m.timerFired(4) == ["pollDeviceToken(USER-1, gen 1)"])
            // slow_down is kept: a later pending answer waits the longer interval too.
            #expect(m.devicePollAnswered(.authorizationPending, at: 20) == ["startTimer(5, 10s)"])
            #expect(m.timerFired(5) == ["pollDeviceToken(USER-1, gen 1)"])
            #expect(
                m.devicePollAnswered(Self.approved, at: 30) == [
                    "cancelPresenter",
                    "transition(handoff→verifying: device sign-in approved; verifying tokens)",
                    "verifyDeviceTokens(gen 1)",
                ])
            #expect(m.stage == .verifying)
            #expect(
                m.exchangeSucceeded(Script.tokens("D")) == [
                    "transition(verifying→active: id_token verified; sub alice)",
                    "resume([1], tokens(D))",
                ])
            #expect(m.stage == .active)
        }

        @Test func aTransientPollFailureBacksOff() {
            var m = Script.makeDevicePolling()
            #expect(
                m.devicePollAnswered(.transientFailure(retryAfter: nil), at: 5) == [
                    "transition(handoff→handoff: device poll deferred (provider unavailable); next poll in 10s)",
                    "startTimer(3, 10s)",
                ])
            _ = m.timerFired(3)
            #expect(m.devicePollAnswered(.transientFailure(retryAfter: .seconds(30)), at: 15).last == "startTimer(4, 30s)")
        }

        @Test func deniedEndsTheHandoff() {
            var m = Script.makeDevicePolling()
            #expect(
                m.devicePollAnswered(.accessDenied, at: 5) == [
                    "cancelTimer(2)",
                    "cancelPresenter",
                    "transition(handoff→signedOut: authorization denied: access_denied)",
                    "resume([90], failed(authorizationDenied(access_denied)))",
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func expiredTokenEndsTheHandoff() {
            var m = Script.makeDevicePolling()
            #expect(
                m.devicePollAnswered(.expiredToken, at: 5).suffix(2) == [
                    "transition(handoff→signedOut: device code expired)", "resume([90], failed(deviceCodeExpired))",
                ])
        }

        @Test func noPollIsPlannedPastExpiresIn() {
            var m = Script.makeDeviceRequesting()
            _ = m.deviceCodeIssued(.success(Script.deviceAuthorization(expiresIn: 12)))
            _ = m.timerFired(2)
            #expect(m.devicePollAnswered(.authorizationPending, at: 5) == ["startTimer(3, 5s)"])
            _ = m.timerFired(3)
            // The next poll would be at 15 s, past the 12 s the code lives.
            #expect(
                m.devicePollAnswered(.authorizationPending, at: 10).suffix(2) == [
                    "transition(handoff→signedOut: device code expired)", "resume([90], failed(deviceCodeExpired))",
                ])
        }

        @Test func aCodeThatExpiresBeforeTheFirstPollEndsAtOnce() {
            var m = Script.makeDeviceRequesting()
            #expect(
                m.deviceCodeIssued(.success(Script.deviceAuthorization(expiresIn: 3))) == [
                    "cancelTimer(1)",
                    "cancelPresenter",
                    "transition(handoff→signedOut: device code expired)",
                    "resume([90], failed(deviceCodeExpired))",
                ])
        }

        @Test func aRejectedPollEndsWithTheProvidersError() {
            var m = Script.makeDevicePolling()
            let refusal = ProviderError.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")
            let lines = m.devicePollAnswered(.rejected(refusal), at: 5)
            #expect(
                lines.suffix(2) == [
                    "transition(handoff→signedOut: device sign-in failed: \(refusal.summary))",
                    "resume([90], failed(provider(\(refusal.summary))))",
                ])
        }

        @Test func aRefusedCodeRequestEndsTheHandoff() {
            var m = Script.makeDeviceRequesting()
            let unavailable = ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")
            #expect(
                m.deviceCodeIssued(.failure(.provider(unavailable))) == [
                    "cancelTimer(1)",
                    "cancelPresenter",
                    "transition(handoff→signedOut: device sign-in failed: \(unavailable.summary))",
                    "resume([90], failed(provider(\(unavailable.summary))))",
                ])
        }

        @Test func theCodeRequestTimesOutLikeAnyHandoff() {
            var m = Script.makeDeviceRequesting()
            #expect(
                m.timerFired(1).suffix(2) == ["transition(handoff→signedOut: handoff timed out)", "resume([90], failed(handoffTimedOut))"])
            // The code that arrives afterwards is never shown.
            #expect(m.deviceCodeIssued(generation: 1) == [])
        }

        @Test func aPresenterThatCannotShowCodesEndsTheSignIn() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(
                m.presenterEnded(.unsupported("this presenter cannot show a device code")) == [
                    "cancelTimer(2)",
                    "cancelPresenter",
                    "transition(handoff→signedOut: handoff could not be shown: this presenter cannot show a device code)",
                    "resume([90], failed(unsupported(this presenter cannot show a device code)))",
                ])
        }

        @Test func thePersonDismissingTheCodeCancels() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(
                m.presenterEnded(.cancelled).suffix(2) == [
                    "transition(handoff→signedOut: handoff cancelled)", "resume([90], failed(cancelled))",
                ])
        }

        @Test func cancellingTheCallerStopsPollingAndDropsALateAnswer() {
            var m = Script.makeDevicePolling()
            #expect(
                m.cancel(waiter: Script.signInCaller) == [
                    "cancelTimer(2)",
                    "cancelPresenter",
                    "transition(handoff→signedOut: handoff cancelled)",
                    "resume([90], failed(cancelled))",
                ])
            #expect(m.devicePollAnswered(Self.approved, at: 5, generation: 1) == [])
            #expect(m.stage == .signedOut)
        }

        @Test func aCallbackNeverAnswersADeviceSignIn() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(m.callback(state: nil) == ["emit(callbackRefused(no handoff waits for a callback))"])
            #expect(!m.lastCallbackConsumed)
            #expect(m.callback(state: "state-1") == ["emit(callbackRefused(no handoff waits for a callback))"])
            #expect(m.stage == .handoff)
        }

        @Test func aPollTimerThatAlreadyFiredIsIgnored() {
            var m = Script.makeDevicePolling()
            #expect(m.timerFired(2) == [])
            #expect(m.devicePhase == "polling")
        }

        @Test func answersOutOfTurnAreIgnored() {
            var waiting = Script.makeDeviceWaitingToPoll()
            #expect(waiting.devicePollAnswered(Self.approved, at: 1) == [], "no poll was in flight")
            #expect(waiting.deviceCodeIssued() == [], "the code was already issued")
            var browser = Script.makeHandoff()
            #expect(browser.devicePollAnswered(Self.approved, at: 1) == [])
            #expect(browser.deviceCodeIssued() == [])
            #expect(browser.stage == .handoff)
        }

        @Test func signOutEndsADeviceSignIn() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(
                m.signOut(waiter: 1).suffix(3) == [
                    "transition(handoff→signedOut: handoff cancelled)", "resume([90], failed(cancelled))", "resume([1], done)",
                ])
        }

        @Test func aDeviceSignInGivesAPendingRevocationNoHostage() {
            var m = Script.makeRevoking()
            #expect(
                m.deviceSignIn(waiter: 1) == [
                    "deferRevocation",
                    "resume([91], done)",
                    "transition(revoking→signedOut: new sign-in; old refresh token revoked in the background)",
                    "transition(signedOut→handoff: device sign-in requested)",
                    "requestDeviceCode(gen 3)",
                    "startTimer(2, 300s)",
                ])
        }

        @Test func verificationFailureEndsSignedOut() {
            var m = Script.makeDeviceVerifying()
            #expect(
                m.exchangeFailed(.verificationFailed(.missingIDToken)) == [
                    "transition(verifying→signedOut: id_token rejected: missing_id_token)",
                    "resume([90], failed(verificationFailed(missing_id_token)))",
                ])
        }
    }
}
