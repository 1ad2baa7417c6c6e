import Foundation
import SessionKit
import SessionKitTesting

/// A high-assurance action: a step-up sign-in's result kept behind the person's biometrics, on
/// the test kit's scripted gate.
extension Scenario {
    static let highAssuranceAction = Scenario(
        name: "high-assurance-action",
        summary: "a step-up kept behind biometrics: confirmed, refused in the background, gone after an enrollment change"
    ) { env, say in
        let gate = ScriptedBiometricGate()
        let background = Locked(false)
        let clock = env.clock
        let vault = HighAssuranceVault(
            gate: gate, now: { clock.wallClockNow() }, isInBackground: { background.withLock { $0 } })
        let reason = "Confirm the transfer of 120 €"

        env.presenter.enqueue(.approve(subject: "alice"))
        let stepUp = try AuthorizationRequestOptions(acr: .essential(["urn:sessionkit:sim:mfa"]), maxAge: 300)
        say.note("for a transfer, alice signs in with maxAge 300 and essential acr mfa", at: env.clock.wallClockNow())
        let identity = try await env.session.signIn(options: stepUp)
        let token = try await env.session.validAccessToken()
        try await vault.keep(token, identity: identity, stepUp: stepUp)
        say.note("the step-up's access token is kept behind biometrics: \(try await vault.isTokenKept())", at: env.clock.wallClockNow())

        env.clock.advance(by: .seconds(120))
        background.withLock { $0 = true }
        let inBackground = try await vault.read(reason: reason)
        say.note("a background task asks for it: \(inBackground); gate reads: \(gate.reasonsShown.count)", at: env.clock.wallClockNow())

        background.withLock { $0 = false }
        gate.enqueue(.deny)
        let denied = try await vault.read(reason: reason)
        say.note("the app asks right before the transfer; alice cancels the prompt: \(denied)", at: env.clock.wallClockNow())

        if case .token(let kept) = try await vault.read(reason: reason) {
            say.note(
                "asked again, alice confirms \"\(gate.reasonsShown.last ?? "")\": a token for \(kept.subject), acr "
                    + "\(kept.authenticationContextClass ?? "none"), accepted by the provider: "
                    + "\(env.provider.isAccessTokenActive(kept.accessToken.secret))", at: env.clock.wallClockNow())
        }

        env.clock.advance(by: .seconds(600))
        gate.changeEnrollment()
        say.note("a new fingerprint is enrolled in Settings", at: env.clock.wallClockNow())
        let changed = try await vault.read(reason: reason)
        say.note("the next transfer: \(changed); kept: \(try await vault.isTokenKept())", at: env.clock.wallClockNow())

        say.note("app calls signOut(); the vault's remove() goes with it", at: env.clock.wallClockNow())
        try await env.session.signOut()
        try await vault.remove()
        let afterSignOut = try await vault.read(reason: reason)
        say.note("after sign-out: \(afterSignOut); gate reads in all: \(gate.reasonsShown.count)", at: env.clock.wallClockNow())
    }
}
