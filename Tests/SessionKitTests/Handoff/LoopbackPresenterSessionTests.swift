import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The loopback presenter under a real `Session`: the session's handoff timeout ends the listener.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackPresenterSessionTests {
    typealias Fixture = LoopbackFixture

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
        #expect(await session.stage == .signedOut)
    }
}
