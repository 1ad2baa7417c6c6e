import Foundation
import SessionKit
import SessionKitTesting

// A launch that never waits for the network, and a refresh that never pretends.
extension Scenario {
    static let relaunchMidSignOutOffline = Scenario(
        name: "relaunch-mid-sign-out-offline",
        summary: "killed while a sign-out waits for the provider, relaunched offline: restore() returns at once, "
            + "the sign-out finishes later"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.script(.connectionFailure, on: .revocation, times: 1_000)
        say.note("the network is gone; the app calls signOut()", at: env.clock.wallClockNow())
        let signOut = Task { try await env.session.signOut() }
        await env.clock.waitForSleepers(count: 1)
        say.note("the sign-out is journaled and waits to retry; the app is killed", at: env.clock.wallClockNow())
        await env.session.shutdown()
        if case .failure(let error as SessionError) = await Result(catching: { try await signOut.value }) {
            say.note("the old process's signOut() ended with \(error.code)", at: env.clock.wallClockNow())
        }
        // Still offline at the relaunch: the resumed revocation hangs until its 30 s deadline.
        env.provider.clearScriptedFaults()
        env.provider.script(.timeout, on: .revocation)
        let relaunched = await env.relaunch()
        let stage = try await relaunched.restore()
        say.note("restore() returned at once: \(stage)", at: env.clock.wallClockNow())
        if case .failure(let error) = await Result(catching: { try await relaunched.validAccessToken() }) {
            say.note("meanwhile validAccessToken() throws \(error)", at: env.clock.wallClockNow())
        }
        await env.clock.waitForSleepers(count: 1)
        env.clock.advance(by: .seconds(30))
        await env.waitUntil { env.retries.count >= 1 }
        await env.clock.waitForSleepers(count: 1)
        say.note("the network is back", at: env.clock.wallClockNow())
        env.clock.advanceToNextDeadline()
        await env.waitForEvent { event in
            if case .transition(let transition) = event { return transition.reason == .revocationConfirmed }
            return false
        }
        say.note(
            "the journaled sign-out finished in the background; stored credentials: \(env.store.record.isEmpty ? "none" : "some")",
            at: env.clock.wallClockNow())
    }

    static let refreshAfter401 = Scenario(
        name: "refresh-after-401",
        summary: "the app's API refused a token: refresh() hands out a newer one, or throws why not; never the refused one"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.clock.advance(by: .seconds(600))
        let refused = try await env.session.validAccessToken()
        say.note("the app's API answers 401 to a token valid for 50 min more; the app calls refresh()", at: env.clock.wallClockNow())
        let newer = try await env.session.refresh()
        say.note(
            "refresh() returned a newer token: \(newer.secret != refused.secret && newer.expiresAt > refused.expiresAt)",
            at: env.clock.wallClockNow())

        env.provider.script(.connectionFailure, on: .token, times: 3)
        say.note("offline, the app calls refresh() again", at: env.clock.wallClockNow())
        let offline = Task { try await env.session.refresh() }
        await env.advanceToNextSleeper()
        await env.advanceToNextSleeper()
        if case .failure(let error as SessionError) = await Result(catching: { try await offline.value }) {
            say.note(
                "refresh() threw \(error.code) (\(error.category)); stage \(env.session.stage); validAccessToken() still answers: "
                    + "\((try? await env.session.validAccessToken()) != nil)", at: env.clock.wallClockNow())
        }

        env.provider.script(.forbidden, on: .token)
        say.note("the provider answers 403 to the next refresh", at: env.clock.wallClockNow())
        if case .failure(let error) = await Result(catching: { try await env.session.refresh() }), let error = error as? SessionError {
            say.note(
                "refresh() threw \(error.code) (\(error.category), requires sign-in: \(error.requiresSignIn)); stage \(env.session.stage)",
                at: env.clock.wallClockNow())
        }
    }
}
