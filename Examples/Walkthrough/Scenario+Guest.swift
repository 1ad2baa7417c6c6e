import Foundation
import SessionKit
import SessionKitTesting

/// An anonymous-first app: a guest session from the device, its key renewed by bootstrapping
/// again, then the guest signs in and is promoted.
extension Scenario {
    static let guestThenSignIn = Scenario(
        name: "guest-then-sign-in",
        summary: "a guest session from the device, one renewal for 20 callers, then a sign-in that promotes the guest"
    ) { env, say in
        say.note("app calls startGuestSession(); the device bootstraps at the provider", at: env.clock.wallClockNow())
        let guest = try await env.session.startGuestSession()
        let stored = env.store.record.session
        say.note(
            "guest: anonymous \(guest.isAnonymous), refresh token \(stored?.refreshToken == nil ? "none" : "kept"); "
                + "device secret kept in the guest slot: \(env.store.guest?.deviceSecret != nil)", at: env.clock.wallClockNow())

        env.clock.advance(by: .seconds(3550))
        env.provider.script(.slow(.milliseconds(250)), on: .anonymousBootstrap)
        say.note("59 minutes later 20 callers ask for a token while the key is due", at: env.clock.wallClockNow())
        let callers = Task {
            await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { (try? await env.session.validAccessToken()) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        await env.clock.waitForSleepers(count: 1)
        await env.waitUntil { env.session.waitingCallerCount == 20 }
        env.clock.advanceToNextDeadline()
        let served = await callers.value
        say.note(
            "\(served) callers served; bootstrap requests in all: \(env.provider.requestCount(for: .anonymousBootstrap)) "
                + "(the start and one renewal with the stored secret)", at: env.clock.wallClockNow())

        env.provider.register(SimulatedProviderUser(subject: "alice", isAnonymous: false, wasPreviouslyAnonymous: true))
        env.presenter.enqueue(.approve(subject: "alice"))
        say.note("the guest signs in; the provider links the guest to alice's account", at: env.clock.wallClockNow())
        let alice = try await env.session.signIn()
        await env.waitUntil { env.store.guest == nil }
        say.note(
            "signed in as \(alice.subject), anonymous \(alice.isAnonymous); guest credential "
                + "\(env.store.guest == nil ? "reset" : "kept") once the promotion was verified", at: env.clock.wallClockNow())

        say.note("app calls signOut()", at: env.clock.wallClockNow())
        try await env.session.signOut()
        say.note(
            "stored credentials after sign-out: \(env.store.record.isEmpty ? "none" : "some"); "
                + "revocations: \(env.provider.requestCount(for: .revocation))", at: env.clock.wallClockNow())
    }
}
