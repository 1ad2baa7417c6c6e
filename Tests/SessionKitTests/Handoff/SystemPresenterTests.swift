import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The system presenter's decisions, on fakes of its two seams: app-to-app first, then the browser.
struct SystemPresenterTests {
    private static let callback = URL(string: "com.example.app://oauth/callback?code=c&state=s")!
    private static let request = HandoffRequest(
        authorizationURL: URL(string: "https://id.example.com/oauth/authorize?state=s")!,
        redirectURI: URL(string: "com.example.app://oauth/callback")!)

    private func present(
        _ presenter: SystemPresenter, _ request: HandoffRequest = request
    ) async -> Result<URL?, HandoffError> {
        do throws(HandoffError) {
            return .success(try await presenter.present(request))
        } catch {
            return .failure(error)
        }
    }

    @Test func whenTheProvidersAppClaimsTheURLTheAnswerComesThroughHandle() async throws {
        let app = FakeAppOpener(installed: true)
        let browser = FakeBrowserSession { _ in Self.callback }

        let result = await present(SystemPresenter(appOpener: app, browser: browser))

        #expect(try result.get() == nil, "nil: the callback arrives through Session.handle(_:)")
        #expect(app.opened.values == [Self.request.authorizationURL])
        #expect(browser.calls.values.isEmpty)
    }

    @Test func withNoAppTheBrowserSessionIsEphemeralAndWatchesTheRedirectScheme() async throws {
        let app = FakeAppOpener(installed: false)
        let browser = FakeBrowserSession { _ in Self.callback }

        let result = await present(SystemPresenter(appOpener: app, browser: browser))

        #expect(try result.get() == Self.callback)
        #expect(app.opened.values.count == 1)
        #expect(
            browser.calls.values
                == [.init(url: Self.request.authorizationURL, callback: .customScheme("com.example.app"), ephemeral: true)])
    }

    @Test func anHTTPSRedirectIsWatchedByHostAndPathAndEphemeralCanBeTurnedOff() async throws {
        let browser = FakeBrowserSession { _ in Self.callback }
        let request = HandoffRequest(
            authorizationURL: Self.request.authorizationURL, redirectURI: URL(string: "https://App.Example.com/oauth/done")!)

        _ = await present(SystemPresenter(appOpener: nil, browser: browser, prefersEphemeralBrowserSession: false), request)

        #expect(browser.calls.values.map(\.callback) == [.https(host: "app.example.com", path: "/oauth/done")])
        #expect(browser.calls.values.map(\.ephemeral) == [false])
    }

    @Test func aNonHTTPSAuthorizationURLIsNotOfferedAsAUniversalLink() async throws {
        let app = FakeAppOpener(installed: true)
        let browser = FakeBrowserSession { _ in Self.callback }
        let request = HandoffRequest(
            authorizationURL: URL(string: "http://127.0.0.1:9000/authorize")!, redirectURI: Self.request.redirectURI)

        #expect(try await present(SystemPresenter(appOpener: app, browser: browser), request).get() == Self.callback)
        #expect(app.opened.values.isEmpty)
    }

    @Test(arguments: [
        (BrowserSessionError.cancelled, HandoffError.cancelled),
        (.noPresentationAnchor, .presentationFailed("there is no window to present the browser session from")),
        (.couldNotStart, .presentationFailed("the browser session could not start")),
        (.failed("network down"), .presentationFailed("the browser session failed: network down")),
    ])
    func browserFailuresAreTyped(_ failure: BrowserSessionError, _ expected: HandoffError) async {
        let browser = FakeBrowserSession { _ throws(BrowserSessionError) in throw failure }

        #expect(await present(SystemPresenter(appOpener: FakeAppOpener(installed: false), browser: browser)).failure == expected)
    }

    @Test func aRedirectNoBrowserSessionCanCatchIsRefusedBeforeShowingAnything() async {
        let browser = FakeBrowserSession { _ in Self.callback }
        let request = HandoffRequest(
            authorizationURL: Self.request.authorizationURL, redirectURI: URL(string: "http://127.0.0.1/callback")!)

        let failure = await present(SystemPresenter(appOpener: nil, browser: browser), request).failure

        #expect(failure.map { String(describing: $0) }?.contains("LoopbackPresenter") == true)
        #expect(browser.calls.values.isEmpty)
    }

    @Test func aHandoffCancelledDuringTheAppToAppTryRaisesNoBrowser() async {
        let app = FakeAppOpener(installed: false)
        // The session's timeout fires while the system is still asking the installed apps.
        app.play { _ in withUnsafeCurrentTask { $0?.cancel() } }
        let browser = FakeBrowserSession { _ in Self.callback }

        #expect(await present(SystemPresenter(appOpener: app, browser: browser)).failure == .cancelled)
        #expect(app.opened.values.count == 1)
        #expect(browser.calls.values.isEmpty)
    }

    @Test(arguments: [
        ("com.example.app://cb", BrowserSessionCallback.customScheme("com.example.app")),
        ("COM.Example.App:/cb", .customScheme("com.example.app")),
        ("https://a.example/", .https(host: "a.example", path: "/")),
        ("https://a.example", .https(host: "a.example", path: "/")),
    ])
    func theCallbackComesFromTheRedirectURI(_ redirect: String, _ expected: BrowserSessionCallback) {
        #expect(BrowserSessionCallback(redirectURI: URL(string: redirect)!) == expected)
    }

    @Test func httpAndHostlessHTTPSRedirectsMakeNoCallback() {
        #expect(BrowserSessionCallback(redirectURI: URL(string: "http://127.0.0.1/cb")!) == nil)
        #expect(BrowserSessionCallback(redirectURI: URL(string: "https:/nohost")!) == nil)
    }
}

/// The system presenter driving a real `Session` against the simulated provider.
struct SystemPresenterSessionTests {
    private static func session(
        _ presenter: SystemPresenter
    ) throws -> (Session, SimulatedProvider<TestClock>) {
        let clock = TestClock()
        let configuration = SimulatedProviderConfiguration()
        let provider = try SimulatedProvider(
            configuration: configuration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 1))
        let session = Session(
            configuration: SessionConfiguration(
                provider: try .onePass(
                    clientID: configuration.clientID, redirectURI: configuration.redirectURI, issuer: configuration.issuer)),
            transport: provider, store: InMemoryCredentialStore(), presenter: presenter, clock: clock, wallClock: { clock.wallClockNow() })
        return (session, provider)
    }

    @Test func theProvidersAppSignsThePersonInThroughHandle() async throws {
        let app = FakeAppOpener(installed: true)
        let browser = FakeBrowserSession { _ throws(BrowserSessionError) in throw .failed("must not be used") }
        let (session, provider) = try Self.session(SystemPresenter(appOpener: app, browser: browser))
        app.play { url in
            guard let callback = try? provider.authorize(url, subject: "alice", decision: .approve) else { return }
            #expect(session.handle(callback))
        }

        let identity = try await session.signIn()

        #expect(identity.subject == "alice")
        #expect(session.stage == .active)
        #expect(browser.calls.values.isEmpty)
    }

    @Test func withoutTheAppTheBrowserSessionSignsThePersonIn() async throws {
        let box = Locked<SimulatedProvider<TestClock>?>(nil)
        let browser = FakeBrowserSession { url throws(BrowserSessionError) in
            guard let provider = box.withLock({ $0 }), let callback = try? provider.authorize(url, subject: "bob", decision: .approve)
            else { throw .failed("no provider") }
            return callback
        }
        let (session, provider) = try Self.session(SystemPresenter(appOpener: FakeAppOpener(installed: false), browser: browser))
        box.withLock { $0 = provider }

        #expect(try await session.signIn().subject == "bob")
        #expect(browser.calls.values.count == 1)
    }

    @Test func aClosedBrowserSessionIsACancelledSignIn() async throws {
        let browser = FakeBrowserSession { _ throws(BrowserSessionError) in throw .cancelled }
        let (session, _) = try Self.session(SystemPresenter(appOpener: FakeAppOpener(installed: false), browser: browser))

        await #expect(throws: SessionError.cancelled) { try await session.signIn() }
        #expect(session.stage == .signedOut)
    }
}
