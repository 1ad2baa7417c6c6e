import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// OpenID Connect beyond the fixed sign-in through the public `Session` API over real HTTP:
/// request options with `auth_time`, verified claims and UserInfo, sign-out that ends the
/// provider's browser session, device sign-in approved by a scripted browser, and the
/// walkthrough's `--device` mode as a separate process.
enum SessionOpenIDConnectScenarios {
    /// A session on `harness`'s store, transport and clocks with its own presenter and configuration.
    static func session(
        _ harness: IntegrationHarness, presenter: some HandoffPresenter, configure: (inout SessionConfiguration) -> Void = { _ in }
    ) -> Session {
        var configuration = harness.configuration
        configure(&configuration)
        let wallClock = harness.wallClock
        return Session(
            configuration: configuration, transport: harness.transport, store: harness.store, presenter: presenter, clock: harness.clock,
            wallClock: { wallClock.now() }, random: SeededRandomNumberGenerator(seed: 7))
    }

    static func browser(_ harness: IntegrationHarness) -> ScriptedBrowser {
        ScriptedBrowser(environment: harness.environment, user: harness.user, transport: harness.providerTransport)
    }

    static func signInWithPromptAndMaxAge(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "stepup")
        defer { harness.cleanUp() }
        let session = session(harness, presenter: BrowserPresenter(browser: browser(harness), signIn: { true }))
        let before = Date().addingTimeInterval(-5)

        let identity = try await session.signIn(options: try AuthorizationRequestOptions(prompt: [.login], maxAge: 60))

        let authTime = try #require(identity.claims.authenticationTime, "max_age was sent, so the verified auth_time is on the identity")
        #expect(authTime >= before.addingTimeInterval(-60))
        #expect(authTime <= Date().addingTimeInterval(60))
        #expect(identity.source == .idToken)
        let stored = try #require(try await harness.storedSession())
        #expect(stored.claims?.authenticationTime == authTime)

        // UserInfo for the same person, held to the verified sub.
        let info = try #require(try await session.fetchUserInfo())
        #expect(info.subject == identity.subject)
        #expect(session.identity == identity, "UserInfo is returned, never merged")

        // A relaunch restores the claims from the store.
        let relaunched = harness.makeSession()
        try await relaunched.restore()
        #expect(relaunched.identity?.claims.authenticationTime == authTime)
    }

    static func signOutEndsTheProviderSession(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "logout")
        defer { harness.cleanUp() }
        let browser = browser(harness)
        let firstVisit = Locked(true)
        // The person types the password once; afterwards only the provider's session cookie signs in.
        let presenter = BrowserPresenter(
            browser: browser,
            signIn: {
                firstVisit.withLock { first in
                    defer { first = false }
                    return first
                }
            })
        let redirect = try #require(environment.postLogoutRedirectURI)
        let session = session(harness, presenter: presenter) {
            $0.endsProviderSessionAtSignOut = true
            $0.postLogoutRedirectURI = redirect
        }
        let recorder = TransitionRecorder()
        let outcomes = SimulatedSessionEnvironmentCollected<ProviderLogoutOutcome>()
        session.addObserver { event in
            recorder.record(event)
            if case .providerLogout(let outcome) = event { outcomes.append(outcome) }
        }
        let identity = try await session.signIn()

        if environment.kind == .djangoOAuthToolkit {
            // Single sign-on is real: another authorization request passes on the cookie alone.
            #expect(browser.holdsCookies)
            let before = try await session.signInProbe(harness: harness, browser: browser)
            #expect(before.isSilentSignIn, "the provider session signs in without asking (got \(before))")
            try await session.signOut()
            #expect(outcomes.values == [.completed])
            #expect(recorder.reasons.contains(.providerSessionEnded))
            #expect(try await harness.storedSession() == nil)
            // The cookie no longer signs in: the authorization request lands on the login page.
            let probe = try await session.signInProbe(harness: harness, browser: browser)
            #expect(probe.isLoginPage, "after RP-initiated logout the provider asks for credentials again (got \(probe))")
        } else {
            try await session.signOut()
            #expect(outcomes.values == [.completed])
            #expect(try await harness.storedSession() == nil)
        }
        #expect(identity.subject.isEmpty == false)
    }

    static func deviceSignInApprovedByAScriptedBrowser(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "device-session")
        defer { harness.cleanUp() }
        let signal = ChangeSignal()
        let approved = Locked(false)
        let presenter = BrowserPresenter(
            browser: browser(harness), signIn: { true },
            decidedDeviceCode: {
                approved.withLock { $0 = true }
                signal.notify()
            })
        let session = session(harness, presenter: presenter) {
            $0.provider.clientID = environment.deviceClientID!
            $0.provider.deviceAuthorizationEndpoint = environment.deviceAuthorizationEndpoint
            // django-oauth-toolkit 3.4 issues no id_token for the device grant: UserInfo names the person.
            $0.requireIDTokenForDeviceSignIn = false
        }
        signal.watch(session.changes)
        signal.watch(harness.clock.changes)
        let requested = Locked(false)
        session.addObserver { event in
            if case .transition(let transition) = event, transition.reason == .deviceSignInRequested { requested.withLock { $0 = true } }
        }
        let signIn = Task { try await session.signInWithDeviceCode() }
        // The scripted browser approves while the first poll waits on the test clock (or the
        // sign-in ends without a code); polls then go out one per advance (the provider does not
        // enforce the interval, so nothing waits in real time) until the answer is the tokens.
        await signal.wait {
            if approved.withLock({ $0 }) { return true }
            guard requested.withLock({ $0 }) else { return false }
            return session.stage != .handoff
        }
        var polls = 0
        while polls < 10 {
            await signal.wait { session.stage != .handoff || harness.clock.sleeperCount > 0 }
            guard session.stage == .handoff else { break }
            harness.clock.advanceToNextDeadline()
            polls += 1
        }
        if session.stage == .handoff {
            Issue.record("still polling after \(polls) polls")
            signIn.cancel()
        }
        let identity = try await signIn.value
        #expect(polls >= 1)
        #expect(identity.source == .userInfo)
        #expect(Int(identity.subject) != nil, "DOT's sub is the numeric user id")
        let info = try #require(try await session.fetchUserInfo())
        #expect(info.subject == identity.subject)
        _ = try await session.refresh()
        #expect(session.identity?.subject == identity.subject)
        try await session.signOut()
        #expect(try await harness.storedSession() == nil)
    }

    static func walkthroughDeviceMode(_ environment: ProviderEnvironment) async throws {
        let harness = try await IntegrationHarness.make(environment, user: "walkthrough-device")
        defer { harness.cleanUp() }
        let run = try WalkthroughRun.start([
            "--issuer", environment.issuer, "--client-id", try #require(environment.deviceClientID), "--device",
            "--device-authorization-endpoint", try #require(environment.deviceAuthorizationEndpoint).absoluteString,
            "--revocation-endpoint", try #require(environment.revocationEndpoint).absoluteString,
        ])
        let uriLine = try #require(await run.line(startingWith: "verification_uri "), "the walkthrough printed no verification URI")
        let codeLine = try #require(await run.line(startingWith: "user_code "), "the walkthrough printed no user code")
        let userCode = String(codeLine.dropFirst("user_code ".count))
        let uri = try #require(URL(string: String(uriLine.dropFirst("verification_uri ".count))))
        #expect(uri.absoluteString.contains(userCode))
        var components = try #require(URLComponents(url: uri, resolvingAgainstBaseURL: false))
        components.query = nil
        let prompt = DeviceCodePrompt(userCode: userCode, verificationURI: try #require(components.url), expiresIn: 60)
        #expect(try await browser(harness).decideDeviceCode(prompt) == 302)
        let finished = await run.finished()
        #expect(run.succeeded(finished.termination), "\(finished.report)")
        #expect(finished.lines.contains { $0.contains("signed in as") })
        #expect(finished.lines.contains { $0.contains("revocation confirmed") })
    }
}

/// Values appended from any task, read in order.
final class SimulatedSessionEnvironmentCollected<Value: Sendable>: Sendable {
    private let storage = Locked<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] { storage.withLock { $0 } }
}

/// Where an authorization request in the browser led.
struct AuthorizationProbe: CustomStringConvertible {
    var location: URL?

    /// DOT's login page: the provider has no session for the browser and asks for credentials.
    var isLoginPage: Bool { location?.absoluteString.contains("/accounts/login/") == true }

    /// The app's redirect URI: the provider signed the browser in without asking.
    var isSilentSignIn: Bool { location?.scheme == "com.example.app" }

    var description: String { location.map { "a redirect to \($0.path)" } ?? "no redirect" }
}

extension Session {
    /// Opens a fresh authorization request in `browser` without signing in, to see whether the
    /// provider still has a session for it. Nothing reaches this session.
    func signInProbe(harness: IntegrationHarness, browser: ScriptedBrowser) async throws -> AuthorizationProbe {
        let client = harness.outOfBandClient()
        let url = client.authorizationURL(
            codeChallenge: try PKCE.generate().challenge, state: try RandomToken.generate(byteCount: 16),
            nonce: try RandomToken.generate(byteCount: 16))
        return AuthorizationProbe(location: try await browser.authorize(url, signIn: false))
    }
}
