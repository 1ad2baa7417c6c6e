import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Sign-in scripts: handoff, callback checks, verification, and every way a handoff ends early.
    @Suite struct SessionStateMachineSignInTests {
        typealias Script = MachineScript

        @Test func happyPathSignsIn() {
            var m = Script.makeSignedOut()
            #expect(
                m.signIn(attempt: 1, waiter: 1) == [
                    .transition(.signedOut, .handoff, .signInRequested),
                    .present(Script.attempt(1), generation: 1),
                    .startTimer(1, after: .seconds(300)),
                ])
            #expect(
                m.callback(code: "code-1", state: "state-1", iss: Script.issuer) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .verifying, .callbackReceived),
                    .exchangeCode(code: "code-1", attempt: Script.attempt(1), generation: 1),
                ])
            #expect(m.lastCallbackConsumed)
            #expect(
                m.exchangeSucceeded(Script.tokens("A")) == [
                    .transition(.verifying, .active, .verified(subject: "alice")),
                    .resume([1], .tokens(Script.tokens("A"))),
                ])
            #expect(m.stage == .active)
            #expect(m.freshTokens() == Script.tokens("A"))
        }

        @Test func callbackWithoutIssuerIsAccepted() {
            // RFC 9207: `iss` is checked when the provider sends it; providers that do not are still served.
            var m = Script.makeHandoff()
            #expect(m.callback(iss: nil).contains(.transition(.handoff, .verifying, .callbackReceived)))
            #expect(m.stage == .verifying)
        }

        @Test func stateMismatchIsNotConsumedAndLeavesTheHandoffWaiting() {
            var m = Script.makeHandoff()
            // Whoever can open the redirect URL must not be able to cancel a sign-in in progress.
            #expect(m.callback(state: "state-forged") == [.emit(.callbackRefused(.stateMismatch))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.stage == .handoff)
            #expect(m.generation == 1)
            #expect(m.callback(state: "state-1").contains(.transition(.handoff, .verifying, .callbackReceived)))
        }

        @Test func missingStateIsAStateMismatch() {
            var m = Script.makeHandoff()
            #expect(m.callback(state: nil) == [.emit(.callbackRefused(.stateMismatch))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.stage == .handoff)
        }

        @Test func issuerMismatchEndsTheHandoff() {
            var m = Script.makeHandoff()
            #expect(
                m.callback(iss: "https://attacker.example") == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .callbackRejected(.issuerMismatch)),
                    .resume([90], .failed(.callbackRejected(.issuerMismatch))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func issuerIsCheckedBeforeAnErrorIsBelieved() {
            // RFC 9207 §2.4: an error response from the wrong issuer is a mix-up, not a denial.
            var m = Script.makeHandoff()
            #expect(
                m.callback(code: nil, error: "access_denied", iss: "https://attacker.example").contains(
                    .resume([90], .failed(.callbackRejected(.issuerMismatch)))))
        }

        @Test func accessDeniedEndsTheHandoff() {
            var m = Script.makeHandoff()
            #expect(
                m.callback(code: nil, error: "access_denied", iss: Script.issuer) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .authorizationDenied(error: "access_denied")),
                    .resume([90], .failed(.authorizationDenied("access_denied"))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func errorWinsOverACode() {
            var m = Script.makeHandoff()
            #expect(
                m.callback(code: "code-1", error: "server_error").contains(.resume([90], .failed(.authorizationDenied("server_error")))))
            #expect(m.stage == .signedOut)
        }

        @Test(arguments: [nil, ""] as [String?])
        func missingCodeEndsTheHandoff(code: String?) {
            var m = Script.makeHandoff()
            #expect(
                m.callback(code: code) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .callbackRejected(.missingCode)),
                    .resume([90], .failed(.callbackRejected(.missingCode))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func callbackWithoutAHandoffIsNotConsumed() {
            var m = Script.makeActive()
            #expect(m.callback() == [.emit(.callbackRefused(.noHandoffWaiting))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.stage == .active)
        }

        @Test func replayedCallbackIsNotConsumed() {
            var m = Script.makeVerifying()
            #expect(m.callback() == [.emit(.callbackRefused(.noHandoffWaiting))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.stage == .verifying)
        }

        @Test func handoffTimesOut() {
            var m = Script.makeHandoff()
            #expect(
                m.timerFired(1) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .handoffTimedOut),
                    .resume([90], .failed(.handoffTimedOut)),
                ])
            #expect(m.stage == .signedOut)
            // Late words from the ended handoff change nothing.
            #expect(m.timerFired(1) == [])
            #expect(m.presenterEnded(.cancelled, generation: 1) == [])
            #expect(m.callback() == [.emit(.callbackRefused(.noHandoffWaiting))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.stage == .signedOut)
        }

        @Test func staleHandoffTimerDoesNotEndANewHandoff() {
            var m = Script.makeHandoff()
            _ = m.presenterEnded(.cancelled)
            #expect(
                m.signIn(attempt: 2, waiter: 1) == [
                    .transition(.signedOut, .handoff, .signInRequested),
                    .present(Script.attempt(2), generation: 3),
                    .startTimer(2, after: .seconds(300)),
                ])
            #expect(m.timerFired(1) == [])
            #expect(m.presenterEnded(.cancelled, generation: 1) == [])
            #expect(m.stage == .handoff)
            // Attempt 1's callback does not belong to attempt 2.
            #expect(m.callback(state: "state-1") == [.emit(.callbackRefused(.stateMismatch))])
            #expect(!m.lastCallbackConsumed)
            #expect(m.stage == .handoff)
        }

        @Test func presenterCancelEndsTheHandoff() {
            var m = Script.makeHandoff()
            #expect(
                m.presenterEnded(.cancelled) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .handoffCancelled),
                    .resume([90], .failed(.cancelled)),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
        }

        @Test func presenterFailureEndsTheHandoff() {
            var m = Script.makeHandoff()
            #expect(
                m.presenterEnded(.presentationFailed("no browser")) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .presentationFailed(.presentationFailed("no browser"))),
                    .resume([90], .failed(.presentationFailed(.presentationFailed("no browser")))),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func presenterEndingAfterTheCallbackIsMoot() {
            var m = Script.makeVerifying()
            #expect(m.presenterEnded(.cancelled) == [])
            #expect(m.stage == .verifying)
        }

        @Test func cancellingTheSignInCallerEndsTheHandoff() {
            var m = Script.makeHandoff()
            #expect(
                m.cancel(waiter: 90) == [
                    .cancelTimer(1),
                    .cancelPresenter,
                    .transition(.handoff, .signedOut, .handoffCancelled),
                    .resume([90], .failed(.cancelled)),
                ])
            #expect(m.stage == .signedOut)
        }

        @Test func cancellingARefusedSecondSignInLeavesTheHandoff() {
            var m = Script.makeHandoff()
            #expect(m.signIn(attempt: 2, waiter: 1) == [.resume([1], .failed(.signInInProgress))])
            // Its task is cancelled after it was already resumed: the handoff of caller 90 goes on.
            #expect(m.cancel(waiter: 1) == [])
            #expect(m.stage == .handoff)
            #expect(m.waiting == [90])
        }

        @Test func cancellingTheCallerWhileVerifyingLetsTheExchangeFinish() {
            var m = Script.makeVerifying()
            #expect(m.cancel(waiter: 90) == [.resume([90], .failed(.cancelled))])
            #expect(m.stage == .verifying)
            #expect(
                m.exchangeSucceeded(Script.tokens("A")) == [
                    .transition(.verifying, .active, .verified(subject: "alice")),
                    .resume([], .tokens(Script.tokens("A"))),
                ])
            #expect(m.stage == .active)
        }

        @Test func exchangeFailureSignsOut() {
            var m = Script.makeVerifying()
            #expect(
                m.exchangeFailed(.verificationFailed(.badSignature)) == [
                    .transition(.verifying, .signedOut, .verificationFailed(.badSignature)),
                    .resume([90], .failed(.verificationFailed(.badSignature))),
                ])
            #expect(m.stage == .signedOut)
            #expect(m.generation == 2)
        }

        @Test func providerErrorDuringExchangeSignsOut() {
            var m = Script.makeVerifying()
            let error = SessionError.provider(.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: ""))
            #expect(
                m.exchangeFailed(error) == [
                    .transition(.verifying, .signedOut, .exchangeFailed(.provider(.answered(400, "invalid_grant")))),
                    .resume([90], .failed(error)),
                ])
        }

        @Test func lateExchangeAfterSignOutIsDiscarded() {
            var m = Script.makeVerifying()
            #expect(
                m.signOut(waiter: 1) == [
                    .transition(.verifying, .signedOut, .handoffCancelled),
                    .resume([90], .failed(.cancelled)),
                    .resume([1], .done),
                ])
            #expect(m.exchangeSucceeded(Script.tokens("A"), generation: 1) == [.discardLateTokens(Script.tokens("A"))])
            #expect(m.exchangeFailed(.verificationFailed(.expired), generation: 1) == [])
            #expect(m.stage == .signedOut)
        }

        @Test func lateExchangeDuringANewSignInIsDiscarded() {
            var m = Script.makeVerifying()
            _ = m.signOut(waiter: 1)
            _ = m.signIn(attempt: 2, waiter: 2)
            #expect(m.generation == 3)
            #expect(m.exchangeSucceeded(Script.tokens("A"), generation: 1) == [.discardLateTokens(Script.tokens("A"))])
            #expect(m.stage == .handoff)
            #expect(m.waiting == [2])
        }

        @Test func signInDuringRevokingDefersTheRevocation() {
            var m = Script.makeRevoking()
            #expect(
                m.signIn(attempt: 2, waiter: 1) == [
                    .deferRevocation,
                    .resume([91], .done),
                    .transition(.revoking, .signedOut, .revocationDeferred),
                    .transition(.signedOut, .handoff, .signInRequested),
                    .present(Script.attempt(2), generation: 3),
                    .startTimer(2, after: .seconds(300)),
                ])
            #expect(m.stage == .handoff)
            // The revocation's own answer belongs to generation 2 and is dropped.
            #expect(m.serverConfirmed(generation: 2) == [])
            #expect(m.serverFailed(.transient(.transport(.timedOut), retryIn: .seconds(1)), generation: 2) == [])
            #expect(m.stage == .handoff)
        }

        @Test func signInDuringARevocationRetryCancelsItsTimer() {
            var m = Script.makeRevoking()
            _ = m.serverFailed(.transient(.answered(503), retryIn: .seconds(2)))
            #expect(
                m.signIn(attempt: 2, waiter: 1) == [
                    .cancelTimer(2),
                    .deferRevocation,
                    .resume([91], .done),
                    .transition(.revoking, .signedOut, .revocationDeferred),
                    .transition(.signedOut, .handoff, .signInRequested),
                    .present(Script.attempt(2), generation: 3),
                    .startTimer(3, after: .seconds(300)),
                ])
            #expect(m.timerFired(2) == [])
            #expect(m.stage == .handoff)
        }

        @Test func signInDuringRevokingResumesSignOutCallersInArrivalOrder() {
            var m = Script.makeRevoking()
            for waiter in 101...120 {
                #expect(m.signOut(waiter: waiter) == [])
            }
            let lines = m.signIn(attempt: 2, waiter: 1)
            #expect(m.stage == .handoff)
            let resumed = lines.first { if case .resume = $0 { true } else { false } }
            #expect(resumed == .resume([91] + Array(101...120), .done))
        }
    }
}

extension StateMachineTests.SessionStateMachineSignInTests {
    @Test func aRepeatedParameterIsNotConsumedAndLeavesTheHandoffWaiting() {
        var m = MachineScript.makeHandoff()
        #expect(m.callback(repeated: ["code"]) == [.emit(.callbackRefused(.repeatedParameter(name: "code")))])
        #expect(!m.lastCallbackConsumed)
        #expect(m.stage == .handoff)
        #expect(
            m.callback() == [
                .cancelTimer(1), .cancelPresenter, .transition(.handoff, .verifying, .callbackReceived),
                .exchangeCode(code: "code-1", attempt: Script.attempt(1), generation: 1),
            ])
    }
}
