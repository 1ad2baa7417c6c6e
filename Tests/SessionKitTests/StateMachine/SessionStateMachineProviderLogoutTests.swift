import Foundation
import Testing

@testable import SessionKit

extension StateMachineTests {
    /// Sign-out that also ends the provider's browser session: after the revocation and the wipe the
    /// stage stays revoking while the end-session page is open; its end never undoes the sign-out.
    @Suite struct SessionStateMachineProviderLogoutTests {
        typealias Script = MachineScript

        @Test func confirmedSignOutOpensTheEndSessionPage() {
            var m = Script.makeRevoking()
            #expect(
                m.serverConfirmed(endSession: .open(Script.endSessionOrder())) == [
                    .transition(.revoking, .revoking, .revocationConfirmed),
                    .presentEndSession(Script.endSessionOrder(1), generation: 2),
                    .startTimer(2, after: Script.providerLogoutTimeout),
                ])
            #expect(m.stage == .revoking)
            #expect(m.waiting == [Script.signOutCaller])
            #expect(m.tokenRequested(waiter: 1) == [.resume([1], .failed(.signOutInProgress))])
            #expect(m.signOut(waiter: 95) == [])
            #expect(
                m.endSessionReturned(Script.endSessionReturn()) == [
                    .cancelTimer(2),
                    .cancelPresenter,
                    .transition(.revoking, .signedOut, .providerSessionEnded),
                    .emit(.providerLogout(.completed)),
                    .resume([91, 95], .done),
                ])
            #expect(m.lastCallbackConsumed)
            #expect(m.stage == .signedOut)
            #expect(m.generation == 3)
        }

        @Test func aReturnIsMatchedLikeACallback() {
            var m = Script.makeEndingProviderSession()
            for url in [
                Script.endSessionReturn(state: "forged"), Script.endSessionReturn(state: nil),
                URL(string: "com.example.app://oauth/logged-out?state=logout-1&state=logout-1")!,
                URL(string: "com.example.app://oauth/elsewhere?state=logout-1")!,
                URL(string: "https://attacker.example/oauth/logged-out?state=logout-1")!,
            ] {
                #expect(m.endSessionReturned(url) == [], "\(url)")
                #expect(!m.lastCallbackConsumed)
            }
            #expect(m.stage == .revoking)
            #expect(m.endSessionReturned(Script.endSessionReturn()).contains(.transition(.revoking, .signedOut, .providerSessionEnded)))
        }

        @Test func aPresentersOwnRedirectURIIsMatched() {
            var m = Script.makeEndingProviderSession()
            let loopback = URL(string: "http://127.0.0.1:49152/logged-out")!
            #expect(m.endSessionReturned(URL(string: "http://127.0.0.1:49152/logged-out?state=logout-1")!) == [])
            #expect(
                m.endSessionReturned(URL(string: "http://127.0.0.1:49152/logged-out?state=logout-1")!, redirectURI: loopback).contains(
                    .emit(.providerLogout(.completed))))
        }

        @Test func cancelledOrTimedOutStillSignsOut() {
            var cancelled = Script.makeEndingProviderSession()
            #expect(
                cancelled.presenterEnded(.cancelled) == [
                    .cancelTimer(2),
                    .cancelPresenter,
                    .transition(.revoking, .signedOut, .providerSessionNotEnded(.cancelled)),
                    .emit(.providerLogout(.cancelled)),
                    .resume([91], .done),
                ])
            var timedOut = Script.makeEndingProviderSession()
            #expect(
                timedOut.timerFired(2).suffix(3) == [
                    .transition(.revoking, .signedOut, .providerSessionNotEnded(.timedOut)), .emit(.providerLogout(.timedOut)),
                    .resume([91], .done),
                ])
            var failed = Script.makeEndingProviderSession()
            #expect(
                failed.presenterEnded(.presentationFailed("no browser")).contains(.emit(.providerLogout(.presentationFailed("no browser"))))
            )
        }

        @Test func aNewSignInSupersedesTheLogout() {
            var m = Script.makeEndingProviderSession()
            #expect(
                m.signIn(attempt: 2, waiter: 1) == [
                    .cancelTimer(2),
                    .cancelPresenter,
                    .transition(.revoking, .signedOut, .providerSessionNotEnded(.superseded)),
                    .emit(.providerLogout(.superseded)),
                    .resume([91], .done),
                    .transition(.signedOut, .handoff, .signInRequested),
                    .present(Script.attempt(2), generation: 4),
                    .startTimer(3, after: .seconds(300)),
                ])
            // The old logout's return and timer are stale now.
            #expect(m.endSessionReturned(Script.endSessionReturn()) == [])
            #expect(m.timerFired(2) == [])
            #expect(m.stage == .handoff)
        }

        @Test func unavailableSignsOutAtOnceAndSaysWhy() {
            var m = Script.makeRevoking()
            #expect(
                m.serverConfirmed(endSession: .unavailable("no post-logout redirect URI is configured")) == [
                    .transition(.revoking, .signedOut, .revocationConfirmed),
                    .emit(.providerLogout(.unavailable("no post-logout redirect URI is configured"))),
                    .resume([91], .done),
                ])
        }

        @Test func aLocalOnlySignOutAlsoEndsTheProviderSession() {
            var m = Script.makeRevoking()
            #expect(
                m.serverFailed(.cannotTell(.revocation), endSession: .open(Script.endSessionOrder())) == [
                    .transition(.revoking, .revoking, .signedOutLocallyOnly(.unsupported(.revocation))),
                    .presentEndSession(Script.endSessionOrder(1), generation: 2),
                    .startTimer(2, after: Script.providerLogoutTimeout),
                ])
        }

        @Test func lateServerAnswersDuringTheLogoutChangeNothing() {
            var m = Script.makeEndingProviderSession()
            #expect(m.serverConfirmed(endSession: .open(Script.endSessionOrder(2))) == [])
            #expect(m.serverFailed(.transient(.answered(503), retryIn: .seconds(1))) == [])
            #expect(m.serverFailed(.storage(.noSpace)) == [])
            #expect(m.stage == .revoking)
            #expect(m.logoutTimer == TimerID(raw: 2))
        }

        @Test func aPresenterAnswerOfAnEarlierGenerationIsIgnored() {
            var m = Script.makeEndingProviderSession()
            #expect(m.presenterEnded(.cancelled, generation: 1) == [])
            #expect(m.stage == .revoking)
        }
    }
}
