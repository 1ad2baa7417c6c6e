import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The loopback presenter under a real `Session`: the session's handoff timeout ends the listener.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackPresenterSessionTests {
    typealias Fixture = LoopbackFixture

    @Test func aScriptedBrowserSignsInThroughTheListener() async throws {
        let clock = TestClock()
        let configuration = SimulatedProviderConfiguration(redirectURI: Fixture.configuredRedirect)
        let provider = try SimulatedProvider(
            configuration: configuration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 1))
        // The browser: the provider approves and redirects; the redirect is followed over real HTTP.
        let browser = BrowserOpener { url throws(HandoffError) in
            let callback: URL
            do {
                callback = try provider.authorize(url, subject: "carol", decision: .approve)
            } catch {
                throw .presentationFailed("the provider refused")
            }
            guard let port = callback.port.map(UInt16.init) else { throw .presentationFailed("no port") }
            let target = callback.path + "?" + (callback.query ?? "")
            Task { _ = try await RawLoopbackClient.exchange(Fixture.head(target, host: "127.0.0.1:\(port)"), port: port) }
        }
        let session = Session(
            configuration: SessionConfiguration(
                provider: try .onePass(
                    clientID: configuration.clientID, redirectURI: configuration.redirectURI, issuer: configuration.issuer)),
            transport: provider, store: InMemoryCredentialStore(), presenter: LoopbackPresenter(opener: browser), clock: clock,
            wallClock: { clock.wallClockNow() })

        let identity = try await session.signIn()

        #expect(identity.subject == "carol")
        #expect(session.stage == .active)
        #expect(provider.requestCount(grantType: "authorization_code") == 1)
    }

    @Test func aDeviceSignInShowsTheCodeInTheTerminalAndSignsInOnceTheProviderApproves() async throws {
        let clock = TestClock()
        let provider = try SimulatedProvider(
            configuration: SimulatedProviderConfiguration(redirectURI: Fixture.configuredRedirect), clock: clock,
            now: { clock.wallClockNow() }, signingKeys: try SimulatedProviderKeys.shared(count: 1))
        provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "dave", decidedAtPoll: 2))
        let (written, output) = AsyncStream.makeStream(of: String.self)
        let session = Session(
            configuration: SessionConfiguration(provider: try provider.providerConfiguration()), transport: provider,
            store: InMemoryCredentialStore(), presenter: LoopbackPresenter(deviceCodeOutput: { output.yield($0) }), clock: clock,
            wallClock: { clock.wallClockNow() })

        let signIn = Task { try await session.signInWithDeviceCode() }
        let text = try #require(await written.first { _ in true })
        #expect(text.contains("\n    SIMU-0001\n"))
        #expect(text.contains(try provider.providerConfiguration().issuer))
        await clock.waitForSleepers()
        clock.advanceToNextDeadline()  // poll 1: authorization_pending
        await clock.waitForSleepers()
        clock.advanceToNextDeadline()  // poll 2: approved

        #expect(try await signIn.value.subject == "dave")
        #expect(session.stage == .active)
        #expect(provider.requestCount(grantType: "urn:ietf:params:oauth:grant-type:device_code") == 2)
    }

    @Test func theHandoffTimeoutClosesTheListenerAndCutsOffASlowLoris() async throws {
        let clock = TestClock()
        let configuration = SimulatedProviderConfiguration(redirectURI: Fixture.configuredRedirect)
        let provider = try SimulatedProvider(
            configuration: configuration, clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 1))
        let sessionConfiguration = SessionConfiguration(
            provider: try .onePass(clientID: configuration.clientID, redirectURI: configuration.redirectURI, issuer: configuration.issuer))
        let (opener, opened) = Fixture.browser()
        let session = Session(
            configuration: sessionConfiguration, transport: provider, store: InMemoryCredentialStore(),
            presenter: LoopbackPresenter(opener: opener), clock: clock, wallClock: { clock.wallClockNow() })
        let signIn = Task { () -> SessionError? in
            do throws(SessionError) {
                try await session.signIn()
                return nil
            } catch {
                return error
            }
        }
        let port = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:))?.port.map(UInt16.init))
        let loris = try RawLoopbackClient.connect(to: port)
        defer { loris.close() }
        loris.send("GET /callback?code=")

        await clock.waitForSleepers()
        clock.advance(by: sessionConfiguration.handoffTimeout)

        #expect(await signIn.value == .handoffTimedOut)
        #expect(await loris.readToEnd().isEmpty, "the slow client is cut off when the handoff ends")
        #expect(RawLoopbackClient.isRefused(port))
        #expect(session.stage == .signedOut)
    }
}
