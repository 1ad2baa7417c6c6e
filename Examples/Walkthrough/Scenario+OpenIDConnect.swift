import Foundation
import SessionKit
import SessionKitTesting

/// The scenarios of OpenID Connect beyond the fixed sign-in: step-up, device sign-in, and a
/// sign-out that also ends the provider's browser session.
extension Scenario {
    static let stepUp = Scenario(
        name: "step-up", summary: "a sensitive action asks for a login within 5 minutes (max_age)"
    ) { env, say in
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        try await env.session.signOut()
        env.clock.advance(by: .seconds(600))
        env.presenter.enqueue(.approve(subject: "alice"))
        say.note("10 minutes later alice signs in again; the provider's browser session lets her through", at: env.clock.wallClockNow())
        try await env.session.signIn()
        let silent = env.provider.authorizationRecords.last?.authenticated == false
        say.note("password asked again: \(silent ? "no" : "yes")", at: env.clock.wallClockNow())
        try await env.session.signOut()
        env.presenter.enqueue(.approve(subject: "alice"))
        say.note("for a payment the app calls signIn(options: maxAge 300, essential acr mfa)", at: env.clock.wallClockNow())
        let stepUp = try AuthorizationRequestOptions(acr: .essential(["urn:sessionkit:sim:mfa"]), maxAge: 300)
        let identity = try await env.session.signIn(options: stepUp)
        let authenticated = env.provider.authorizationRecords.last?.authenticated == true
        let authTime = identity.claims.authenticationTime.map { Narrator.format($0.timeIntervalSince(env.epoch)) } ?? "none"
        say.note(
            "password asked again: \(authenticated ? "yes" : "no"); verified auth_time t=+\(authTime)s, acr \(identity.claims.authenticationContextClass ?? "none")",
            at: env.clock.wallClockNow())
    }

    static let deviceSignIn = Scenario(
        name: "device-sign-in", summary: "a TV signs in with a device code; the provider asks to slow down"
    ) { env, say in
        env.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 3, slowDownAtPolls: [2]))
        env.presenter.enqueue(.showDeviceCode)
        say.note("app calls signInWithDeviceCode(); alice will approve on her phone before the third poll", at: env.clock.wallClockNow())
        let signIn = Task { try await env.session.signInWithDeviceCode() }
        await env.waitUntil { !env.presenter.presentedDeviceCodes.isEmpty }
        if let prompt = env.presenter.presentedDeviceCodes.first {
            say.note("the TV shows code \(prompt.userCode) and \(prompt.verificationURI.absoluteString)", at: env.clock.wallClockNow())
        }
        while env.session.stage == .handoff {
            await env.advanceToNextSleeper()
            await env.waitUntil { env.session.stage != .handoff || env.clock.sleeperCount > 0 }
        }
        let identity = try await signIn.value
        say.note(
            "signed in as \(identity.subject) after \(env.provider.requestCount(grantType: ProviderClient.deviceCodeGrantType)) polls",
            at: env.clock.wallClockNow())
    }

    static let providerLogout = Scenario(
        name: "provider-logout", summary: "sign-out also ends the provider's browser session (RP-initiated logout)",
        configure: {
            $0.endsProviderSessionAtSignOut = true
            $0.postLogoutRedirectURI = URL(string: "com.example.app://oauth/logged-out")
        },
        run: { env, say in
            env.presenter.enqueue(.approve(subject: "alice"))
            try await env.session.signIn()
            env.presenter.enqueue(.endSession())
            say.note("app calls signOut(); the end-session page opens after the revocation and the wipe", at: env.clock.wallClockNow())
            try await env.session.signOut()
            say.note(
                "stored credentials: \(env.store.record.isEmpty ? "none" : "some"); provider browser session for alice: \(env.provider.hasBrowserSession(for: "alice") ? "kept" : "ended")",
                at: env.clock.wallClockNow())
            env.presenter.enqueue(.approve(subject: "alice"))
            try await env.session.signIn()
            let asked = env.provider.authorizationRecords.last?.authenticated == true
            say.note("the next sign-in asks for the password again: \(asked ? "yes" : "no")", at: env.clock.wallClockNow())
        })
}
