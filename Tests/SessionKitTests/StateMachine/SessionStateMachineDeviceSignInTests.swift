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
                    .transition(.signedOut, .handoff, .deviceSignInRequested),
                    .requestDeviceCode(generation: 1),
                    .startTimer(1, after: .seconds(300)),
                ])
            #expect(m.devicePhase == "requestingCode")
            #expect(
                m.deviceCodeIssued() == [
                    .cancelTimer(1),
                    .transition(.handoff, .handoff, .deviceCodeIssued(expiresInSeconds: 600)),
                    .presentDeviceCode(DeviceCodePrompt(Script.deviceAuthorization(1)), generation: 1),
                    .startTimer(2, after: .seconds(5)),
                ])
            #expect(m.timerFired(2) == [.pollDeviceToken(Script.deviceAuthorization(1), generation: 1)])
            #expect(m.devicePhase == "polling")
            #expect(m.devicePollAnswered(.authorizationPending, at: 5) == [.startTimer(3, after: .seconds(5))])
            #expect(m.timerFired(3) == [.pollDeviceToken(Script.deviceAuthorization(1), generation: 1)])
            #expect(
                m.devicePollAnswered(.slowDown, at: 10) == [
                    .transition(.handoff, .handoff, .devicePollDeferred(afterSeconds: 10, because: "slow_down")),
                    .startTimer(4, after: .seconds(10)),
                ])
            #expect(m.devicePollInterval == .seconds(10))
            #expect(m.timerFired(4) == [.pollDeviceToken(Script.deviceAuthorization(1), generation: 1)])
            // slow_down is kept: a later pending answer waits the longer interval too.
            #expect(m.devicePollAnswered(.authorizationPending, at: 20) == [.startTimer(5, after: .seconds(10))])
            #expect(m.timerFired(5) == [.pollDeviceToken(Script.deviceAuthorization(1), generation: 1)])
            #expect(
                m.devicePollAnswered(Self.approved, at: 30) == [
                    .cancelPresenter,
                    .transition(.handoff, .verifying, .deviceSignInApproved),
                    .verifyDeviceTokens(TokenResponse(accessToken: Secret("device-access")), generation: 1),
                ])
            #expect(m.stage == .verifying)
            #expect(
                m.exchangeSucceeded(Script.tokens("D")) == [
                    .transition(.verifying, .active, .verified(subject: "alice")),
                    .resume([1], .tokens(Script.tokens("D"))),
                ])
            #expect(m.stage == .active)
        }

        @Test func aTransientPollFailureBacksOff() {
            var m = Script.makeDevicePolling()
            #expect(
                m.devicePollAnswered(.transientFailure(retryAfter: nil), at: 5) == [
                    .transition(.handoff, .handoff, .devicePollDeferred(afterSeconds: 10, because: "provider unavailable")),
                    .startTimer(3, after: .seconds(10)),
                ])
            _ = m.timerFired(3)
            #expect(m.devicePollAnswered(.transientFailure(retryAfter: .seconds(30)), at: 15).last == .startTimer(4, after: .seconds(30)))
        }

        @Test func deniedEndsTheHandoff() {
            var m = Script.makeDevicePolling()
            #expect(
                m.devicePollAnswered(.accessDenied, at: 5) == [
                    .cancelTimer(2),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .authorizationDenied(error: "access_denied")),
                    .resume([90], .failed(.authorizationDenied("access_denied"))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func expiredTokenEndsTheHandoff() {
            var m = Script.makeDevicePolling()
            #expect(
                m.devicePollAnswered(.expiredToken, at: 5).suffix(2) == [
                    .transition(.handoff, .signedOut, .deviceCodeExpired), .resume([90], .failed(.deviceCodeExpired)),
                ])
        }

        @Test func noPollIsPlannedPastExpiresIn() {
            var m = Script.makeDeviceRequesting()
            _ = m.deviceCodeIssued(.success(Script.deviceAuthorization(expiresIn: 12)))
            _ = m.timerFired(2)
            #expect(m.devicePollAnswered(.authorizationPending, at: 5) == [.startTimer(3, after: .seconds(5))])
            _ = m.timerFired(3)
            // The next poll would be at 15 s, past the 12 s the code lives.
            #expect(
                m.devicePollAnswered(.authorizationPending, at: 10).suffix(2) == [
                    .transition(.handoff, .signedOut, .deviceCodeExpired), .resume([90], .failed(.deviceCodeExpired)),
                ])
        }

        @Test func aCodeThatExpiresBeforeTheFirstPollEndsAtOnce() {
            var m = Script.makeDeviceRequesting()
            #expect(
                m.deviceCodeIssued(.success(Script.deviceAuthorization(expiresIn: 3))) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .deviceCodeExpired),
                    .resume([90], .failed(.deviceCodeExpired)),
                ])
        }

        @Test func aRejectedPollEndsWithTheProvidersError() {
            var m = Script.makeDevicePolling()
            let refusal = ProviderError.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")
            let lines = m.devicePollAnswered(.rejected(refusal), at: 5)
            #expect(
                lines.suffix(2) == [
                    .transition(.handoff, .signedOut, .deviceSignInFailed(.provider(refusal))),
                    .resume([90], .failed(.provider(refusal))),
                ])
        }

        @Test func aRefusedCodeRequestEndsTheHandoff() {
            var m = Script.makeDeviceRequesting()
            let unavailable = ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")
            #expect(
                m.deviceCodeIssued(.failure(.provider(unavailable))) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .deviceSignInFailed(.provider(unavailable))),
                    .resume([90], .failed(.provider(unavailable))),
                ])
        }

        @Test func theCodeRequestTimesOutLikeAnyHandoff() {
            var m = Script.makeDeviceRequesting()
            #expect(
                m.timerFired(1).suffix(2) == [
                    .transition(.handoff, .signedOut, .handoffTimedOut), .resume([90], .failed(.handoffTimedOut)),
                ])
            // The code that arrives afterwards is never shown.
            #expect(m.deviceCodeIssued(generation: 1) == [])
        }

        @Test func aPresenterThatCannotShowCodesEndsTheSignIn() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(
                m.presenterEnded(.unsupported("this presenter cannot show a device code")) == [
                    .cancelTimer(2),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .presentationFailed(.unsupported("this presenter cannot show a device code"))),
                    .resume([90], .failed(.unsupported(.presentation("this presenter cannot show a device code")))),
                ])
        }

        @Test func thePersonDismissingTheCodeCancels() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(
                m.presenterEnded(.cancelled).suffix(2) == [
                    .transition(.handoff, .signedOut, .handoffCancelled), .resume([90], .failed(.cancelled)),
                ])
        }

        @Test func cancellingTheCallerStopsPollingAndDropsALateAnswer() {
            var m = Script.makeDevicePolling()
            #expect(
                m.cancel(waiter: Script.signInCaller) == [
                    .cancelTimer(2),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .handoffCancelled),
                    .resume([90], .failed(.cancelled)),
                ])
            #expect(m.devicePollAnswered(Self.approved, at: 5, generation: 1) == [])
            #expect(m.stage == .signedOut)
        }

        @Test func aCallbackNeverAnswersADeviceSignIn() {
            var m = Script.makeDeviceWaitingToPoll()
            #expect(m.callback(state: nil) == [.emit(.callbackRefused(.noHandoffWaiting))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.callback(state: "state-1") == [.emit(.callbackRefused(.noHandoffWaiting))])
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
                    .transition(.handoff, .signedOut, .handoffCancelled), .resume([90], .failed(.cancelled)), .resume([1], .done),
                ])
        }

        @Test func aDeviceSignInGivesAPendingRevocationNoHostage() {
            var m = Script.makeRevoking()
            #expect(
                m.deviceSignIn(waiter: 1) == [
                    .deferRevocation,
                    .resume([91], .done),
                    .transition(.revoking, .signedOut, .revocationDeferred),
                    .transition(.signedOut, .handoff, .deviceSignInRequested),
                    .requestDeviceCode(generation: 3),
                    .startTimer(2, after: .seconds(300)),
                ])
        }

        @Test func verificationFailureEndsSignedOut() {
            var m = Script.makeDeviceVerifying()
            #expect(
                m.exchangeFailed(.verificationFailed(.missingIDToken)) == [
                    .transition(.verifying, .signedOut, .verificationFailed(.missingIDToken)),
                    .resume([90], .failed(.verificationFailed(.missingIDToken))),
                ])
        }
    }
}
