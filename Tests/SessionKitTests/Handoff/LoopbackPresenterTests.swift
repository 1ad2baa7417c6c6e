import Foundation
import Testing

@testable import SessionKit

/// The loopback presenter over real sockets on 127.0.0.1, with a scripted browser.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackPresenterTests {
    typealias Fixture = LoopbackFixture

    @Test func theCallbackIsAcceptedAnsweredWithThePageAndThePortClosed() async throws {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener))
        let redirect = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:)))
        let port = try #require(redirect.port.map(UInt16.init))

        let response = try await RawLoopbackClient.exchange(
            Fixture.head("/callback?code=c0de-123&state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)

        #expect(Fixture.status(of: response) == 200)
        #expect(response.contains("You can close this window."))
        #expect(response.contains("Cache-Control: no-store"))
        #expect(!response.contains("c0de-123") && !response.contains(Fixture.state), "the page repeats nothing from the request")
        let callback = try await presenting.value.get()
        #expect(callback == URL(string: "http://127.0.0.1:\(port)/callback?code=c0de-123&state=\(Fixture.state)"))
        #expect(RawLoopbackClient.isRefused(port), "the listener is closed once the handoff has its answer")
    }

    @Test func aDeviceCodeIsWrittenWithTheAddressAndTheCodeAndNoBrowserIsRaised() async throws {
        let written = Collector<String>()
        let opened = Collector<URL>()
        let presenter = LoopbackPresenter(opener: BrowserOpener { opened.append($0) }, deviceCodeOutput: { written.append($0) })
        let prompt = DeviceCodePrompt(
            userCode: "WDJB-MJHT", verificationURI: URL(string: "https://id.example.com/device")!,
            verificationURIComplete: URL(string: "https://id.example.com/device?user_code=WDJB-MJHT")!, expiresIn: 900)

        try await presenter.presentDeviceCode(prompt)

        let text = try #require(written.values.first)
        #expect(written.values.count == 1)
        #expect(text.contains("\n    https://id.example.com/device\n"))
        #expect(text.contains("\n    WDJB-MJHT\n"))
        #expect(text.contains("https://id.example.com/device?user_code=WDJB-MJHT"))
        #expect(opened.values.isEmpty, "the person opens the page on another device")
    }

    @Test func theAttemptsRedirectURIIsTheListenersPortAndEveryOtherParameterIsKept() async throws {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener))
        let url = try #require(await opened.first { _ in true })
        presenting.cancel()
        _ = await presenting.value

        let redirect = try #require(Fixture.redirectURI(in: url))
        #expect(redirect.scheme == "http" && redirect.host == "127.0.0.1" && redirect.path == "/callback")
        #expect((redirect.port ?? 0) > 0)
        let expected = Fixture.fields(of: Fixture.request.authorizationURL).map {
            $0.0 == "redirect_uri" ? ($0.0, redirect.absoluteString) : $0
        }
        #expect(Fixture.fields(of: url).map { "\($0.0)=\($0.1)" } == expected.map { "\($0.0)=\($0.1)" })
        #expect(url.host == "id.example.com" && url.path == "/authorize")
    }

    @Test func anErrorCallbackIsAnAnswerToo() async throws {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener))
        let port = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:))?.port.map(UInt16.init))

        let response = try await RawLoopbackClient.exchange(
            Fixture.head("/callback?error=access_denied&state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)

        #expect(Fixture.status(of: response) == 200)
        #expect(try await presenting.value.get()?.query == "error=access_denied&state=\(Fixture.state)")
    }

    @Test func aFixedPortAndAnotherCallbackPathAndPageAreUsed() async throws {
        let port = try LoopbackHTTPServer.unusedPort(in: 23_500..<23_600)
        let (opener, opened) = Fixture.browser()
        let presenter = LoopbackPresenter(port: port, callbackPath: "/done", opener: opener, completionPage: "<p>custom page</p>")
        let presenting = Fixture.presenting(presenter)
        let redirect = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:)))
        #expect(redirect == URL(string: "http://127.0.0.1:\(port)/done"))

        let configuredPath = try await RawLoopbackClient.exchange(
            Fixture.head("/callback?code=c&state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)
        let response = try await RawLoopbackClient.exchange(
            Fixture.head("/done?code=c&state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)

        #expect(Fixture.status(of: configuredPath) == 404)
        #expect(Fixture.status(of: response) == 200 && response.hasSuffix("<p>custom page</p>"))
        #expect(try await presenting.value.get()?.path == "/done")
    }

    @Test func aBusyPortIsATypedFailure() async throws {
        let server = try LoopbackHTTPServer { _ in .hang }
        defer { server.stop() }
        let presenter = LoopbackPresenter(port: server.port, opener: BrowserOpener { _ in Issue.record("nothing to open") })

        await #expect(throws: HandoffError.presentationFailed("port \(server.port) on 127.0.0.1 is already in use")) {
            try await presenter.present(Fixture.request)
        }
    }

    @Test func anOpenerFailureEndsTheHandoffAndClosesThePort() async throws {
        let ports = Collector<UInt16>()
        // A port below the ephemeral range, so no other test's listener (they all bind port 0)
        // can be given it once this one closed it.
        let fixed = try #require((23_000..<23_200).first { RawLoopbackClient.isRefused($0) })
        let presenter = LoopbackPresenter(
            port: fixed,
            opener: BrowserOpener { url throws(HandoffError) in
                if let port = Fixture.redirectURI(in: url)?.port { ports.append(UInt16(port)) }
                throw .presentationFailed("no browser here")
            })

        await #expect(throws: HandoffError.presentationFailed("no browser here")) { try await presenter.present(Fixture.request) }

        let port = try #require(ports.values.first)
        #expect(port == fixed)
        #expect(RawLoopbackClient.isRefused(port))
    }

    @Test func cancellingThePresentingTaskClosesTheListenerAndEveryConnection() async throws {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener))
        let port = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:))?.port.map(UInt16.init))
        let idle = try RawLoopbackClient.connect(to: port)
        defer { idle.close() }
        idle.send("GET /callback?code=")

        presenting.cancel()

        #expect(await presenting.value.failure == .cancelled)
        #expect(await idle.readToEnd().isEmpty, "the half-sent request got no answer, only a closed connection")
        #expect(RawLoopbackClient.isRefused(port))
    }

    @Test func theConfiguredRedirectPathIsTheDefaultAndARootPathWorks() async throws {
        let (opener, opened) = Fixture.browser()
        let request = Fixture.request(
            URL(string: "https://id.example.com/authorize?redirect_uri=x&state=\(Fixture.state)")!,
            redirectURI: URL(string: "http://127.0.0.1")!)
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener), request)
        let redirect = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:)))
        let port = try #require(redirect.port.map(UInt16.init))
        #expect(redirect.path == "/")

        let response = try await RawLoopbackClient.exchange(
            Fixture.head("/?code=c&state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)

        #expect(Fixture.status(of: response) == 200)
        #expect(try await presenting.value.get() != nil)
    }

    @Test func aRequestThatCannotBeRedirectedToTheListenerIsRefusedBeforeOpeningAnything() async {
        let request = HandoffRequest(
            authorizationURL: Fixture.request.authorizationURL, redirectURI: Fixture.request.redirectURI)
        let presenter = LoopbackPresenter(opener: BrowserOpener { _ in Issue.record("nothing to open") })

        let failure = await Fixture.presenting(presenter, request).value.failure

        #expect(failure.map { String(describing: $0) }?.contains("cannot be redirected to http://127.0.0.1:") == true)
    }

    @Test func aHandoffAlreadyOverOpensNoBrowser() async {
        let presenter = LoopbackPresenter(opener: BrowserOpener { _ in Issue.record("nothing to open") })
        let task = Task { () -> HandoffError? in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(HandoffError) {
                _ = try await presenter.present(Fixture.request)
                return nil
            } catch {
                return error
            }
        }

        #expect(await task.value == .cancelled)
    }

    @Test func onlyLoopbackHTTPRedirectURIsAreServed() {
        #expect(LoopbackPresenter.canServe(URL(string: "http://127.0.0.1/callback")!))
        #expect(LoopbackPresenter.canServe(URL(string: "http://127.0.0.1:8400/")!))
        #expect(!LoopbackPresenter.canServe(URL(string: "https://127.0.0.1/callback")!))
        #expect(!LoopbackPresenter.canServe(URL(string: "http://localhost/callback")!))
        #expect(!LoopbackPresenter.canServe(URL(string: "com.example.app://oauth/callback")!))
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
