import Foundation
import Testing

@testable import SessionKit

/// Other local processes talk to the loopback listener too: none of them can end, block or hijack
/// the handoff, and each is cut off when it ends.
@Suite(.timeLimit(.minutes(1)))
struct LoopbackPresenterHostileClientTests {
    typealias Fixture = LoopbackFixture

    /// Starts a presentation and returns it with the port it listens on.
    private func listening() async throws -> (Task<Result<URL?, HandoffError>, Never>, UInt16) {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener))
        let port = try #require(await opened.first { _ in true }.flatMap(Fixture.redirectURI(in:))?.port.map(UInt16.init))
        return (presenting, port)
    }

    private func theRealCallback(_ port: UInt16) async throws -> String {
        try await RawLoopbackClient.exchange(
            Fixture.head("/callback?code=real&state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)
    }

    @Test func refusedRequestsGetTheirStatusAndListeningGoesOn() async throws {
        let (presenting, port) = try await listening()
        let host = "127.0.0.1:\(port)"
        let good = "/callback?code=c&state=\(Fixture.state)"
        let refusals: [(String, String, Int)] = [
            ("another path", Fixture.head("/favicon.ico", host: host), 404),
            ("a path that only starts like it", Fixture.head("/callbackx?code=c&state=\(Fixture.state)", host: host), 404),
            ("another method", Fixture.head(good, method: "POST", host: host), 405),
            ("a lower-case method", Fixture.head(good, method: "get", host: host), 405),
            ("a foreign Host (DNS rebinding)", Fixture.head(good, host: "evil.example:\(port)"), 400),
            ("localhost instead of the literal", Fixture.head(good, host: "localhost:\(port)"), 400),
            ("no Host", Fixture.head(good, host: nil), 400),
            ("two Hosts", Fixture.head(good, host: host, extra: ["Host: \(host)"]), 400),
            ("a forged state", Fixture.head("/callback?code=c&state=guess", host: host), 400),
            ("no state", Fixture.head("/callback?code=c", host: host), 400),
            ("a repeated state", Fixture.head("\(good)&state=\(Fixture.state)", host: host), 400),
            ("a repeated code", Fixture.head("\(good)&code=d", host: host), 400),
            ("neither code nor error", Fixture.head("/callback?state=\(Fixture.state)", host: host), 400),
            ("no query", Fixture.head("/callback", host: host), 400),
            ("a broken escape", Fixture.head("/callback?code=%zz&state=\(Fixture.state)", host: host), 400),
            ("an absolute-form target", Fixture.head("http://\(host)\(good)", host: host), 400),
            ("HTTP/2.0", "GET \(good) HTTP/2.0\r\nHost: \(host)\r\n\r\n", 400),
            ("a folded header", "GET \(good) HTTP/1.1\r\nHost: \(host)\r\nX-A: 1\r\n  folded\r\n\r\n", 400),
            ("a space before the colon", "GET \(good) HTTP/1.1\r\nHost : \(host)\r\n\r\n", 400),
            ("a control byte", "GET \(good) HTTP/1.1\r\nHost: \(host)\r\nX-A: \u{7}\r\n\r\n", 400),
            ("a bare LF inside", "GET \(good) HTTP/1.1\nHost: \(host)\r\n\r\n", 400),
            ("binary garbage", "\u{1}\u{2}\u{3}\u{FF}garbage\r\n\r\n", 400),
        ]
        for (what, request, status) in refusals {
            let response = try await RawLoopbackClient.exchange(request, port: port)
            #expect(Fixture.status(of: response) == status, "\(what)")
            #expect(!response.contains(Fixture.state), "\(what): nothing from the request is echoed")
        }

        #expect(Fixture.status(of: try await theRealCallback(port)) == 200)
        #expect(try await presenting.value.get()?.query == "code=real&state=\(Fixture.state)")
    }

    @Test func anOversizedHeadIsRefusedWithOrWithoutItsEnd() async throws {
        let (presenting, port) = try await listening()
        let padding = String(repeating: "a", count: LoopbackRequestHead.maximumSize + 1)

        let whole = try await RawLoopbackClient.exchange(
            Fixture.head("/callback?code=c&state=\(Fixture.state)", host: "127.0.0.1:\(port)", extra: ["X-Pad: \(padding)"]), port: port)
        let endless = try RawLoopbackClient.connect(to: port)
        defer { endless.close() }
        endless.send("GET /callback?" + padding + padding)
        let endlessResponse = String(decoding: await endless.readToEnd(), as: UTF8.self)

        #expect(Fixture.status(of: whole) == 431)
        #expect(Fixture.status(of: endlessResponse) == 431)
        #expect(Fixture.status(of: try await theRealCallback(port)) == 200)
        #expect(try await presenting.value.get() != nil)
    }

    @Test func garbageThatNeverEndsAHeadIsDroppedWhenItsSenderLeaves() async throws {
        let (presenting, port) = try await listening()
        let garbage = try RawLoopbackClient.connect(to: port)
        garbage.send((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) }.filter { $0 != 0x0D && $0 != 0x0A })
        garbage.close()

        #expect(Fixture.status(of: try await theRealCallback(port)) == 200)
        #expect(try await presenting.value.get() != nil)
    }

    @Test func aSlowLorisDoesNotHoldUpTheCallbackAndIsCutOffWhenTheHandoffEnds() async throws {
        let (presenting, port) = try await listening()
        let loris = try RawLoopbackClient.connect(to: port)
        defer { loris.close() }
        loris.send("GET /callback?code=slow&state=\(Fixture.state) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Still-Typing: ")
        let silent = try RawLoopbackClient.connect(to: port)
        defer { silent.close() }

        #expect(Fixture.status(of: try await theRealCallback(port)) == 200)
        #expect(try await presenting.value.get()?.query == "code=real&state=\(Fixture.state)")
        #expect(await loris.readToEnd().isEmpty, "the unfinished request got no answer, only a closed connection")
        #expect(await silent.readToEnd().isEmpty)
        #expect(RawLoopbackClient.isRefused(port))
    }

    @Test func aFloodOfIdleConnectionsDoesNotLockTheBrowserOut() async throws {
        let (presenting, port) = try await listening()
        let idle = try (0..<(LoopbackListener.maximumConnections + 8)).map { _ in try RawLoopbackClient.connect(to: port) }
        defer { for connection in idle { connection.close() } }

        #expect(Fixture.status(of: try await theRealCallback(port)) == 200)
        #expect(try await presenting.value.get() != nil)
        for connection in idle {
            #expect(await connection.readToEnd().isEmpty)
        }
    }

    @Test func aSecondCallbackAfterTheFirstFindsNobodyListening() async throws {
        let (presenting, port) = try await listening()
        #expect(Fixture.status(of: try await theRealCallback(port)) == 200)
        _ = await presenting.value

        #expect(throws: RawClientError(call: "connect", code: ECONNREFUSED)) { try RawLoopbackClient.connect(to: port) }
    }
}
