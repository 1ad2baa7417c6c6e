import Foundation
import SessionKit
import Testing

@Suite(.timeLimit(.minutes(1)))
struct URLSessionTransportTests {
    private func outcome(
        of request: HTTPRequest, through transport: URLSessionTransport<ManualClock>
    ) async -> Result<HTTPResponse, TransportError> {
        do {
            return .success(try await transport.send(request))
        } catch {
            return .failure(error)
        }
    }

    @Test func returnsStatusHeadersAndBodyOfA200WithoutTheClockMoving() async throws {
        try await LoopbackHTTPServer.withServer(
            { _ in
                .response(200, "OK", headers: [("Content-Type", "application/json"), ("X-Probe", "one")], body: Data(#"{"ok":true}"#.utf8))
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock())
                let response = try await transport.send(HTTPRequest(method: "GET", url: server.url("/ok")))
                #expect(response.status == 200)
                #expect(response.body == Data(#"{"ok":true}"#.utf8))
                #expect(response.header("content-type") == "application/json")
                #expect(response.header("X-PROBE") == "one")
            })
    }

    @Test func sendsMethodHeadersAndBodyAsGiven() async throws {
        try await LoopbackHTTPServer.withServer(
            { request in
                .response(201, "Created", body: request.body)
            },
            { server in
                let form = Data("grant_type=refresh_token&refresh_token=a%2Bb%2Fc".utf8)
                let request = HTTPRequest(
                    method: "POST", url: server.url("/token?x=1"),
                    headers: [
                        ("Content-Type", "application/x-www-form-urlencoded"), ("Authorization", "Bearer abc"),
                    ],
                    body: form)
                let response = try await URLSessionTransport(clock: ManualClock()).send(request)
                #expect(response.status == 201)
                #expect(response.body == form)
                let seen = try #require(server.activity.requests.first)
                #expect(seen.method == "POST")
                #expect(seen.target == "/token?x=1")
                #expect(seen.headers["content-type"] == "application/x-www-form-urlencoded")
                #expect(seen.headers["authorization"] == "Bearer abc")
                #expect(seen.body == form)
            })
    }

    @Test func returnsARedirectAsItIsWithoutFollowingIt() async throws {
        try await LoopbackHTTPServer.withServer(
            { request in
                if request.target.hasPrefix("/authorize") {
                    return .response(302, "Found", headers: [("Location", "com.example.app:/callback?code=abc&state=xyz")])
                }
                return .response(200, "OK", body: Data("followed".utf8))
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock())
                let response = try await transport.send(HTTPRequest(method: "GET", url: server.url("/authorize?client_id=c")))
                #expect(response.status == 302)
                #expect(response.header("location") == "com.example.app:/callback?code=abc&state=xyz")
                #expect(server.activity.requests.map(\.target) == ["/authorize?client_id=c"])
            })
    }

    @Test func doesNotFollowARedirectToAnotherPathOnTheSameServer() async throws {
        try await LoopbackHTTPServer.withServer(
            { request in
                request.target == "/start"
                    ? .response(303, "See Other", headers: [("Location", "/landed")])
                    : .response(200, "OK", body: Data("landed".utf8))
            },
            { server in
                let response = try await URLSessionTransport(clock: ManualClock())
                    .send(HTTPRequest(method: "POST", url: server.url("/start"), body: Data("a=1".utf8)))
                #expect(response.status == 303)
                #expect(response.header("location") == "/landed")
                #expect(server.activity.requests.count == 1)
            })
    }

    @Test func deadlineOnTheInjectedClockEndsARequestTheServerNeverAnswers() async throws {
        try await LoopbackHTTPServer.withServer(
            { _ in .hang },
            { server in
                let clock = ManualClock()
                let transport = URLSessionTransport(clock: clock, deadline: .seconds(10))
                let pending = Task { await outcome(of: HTTPRequest(method: "GET", url: server.url("/slow")), through: transport) }
                await server.waitUntil { $0.requests.count == 1 }
                await clock.waitForSleepers(1)

                clock.advance(by: .seconds(9))
                #expect(clock.sleeperCount == 1, "the deadline must not pass a second early")

                clock.advance(by: .seconds(1))
                #expect(await pending.value == .failure(.timedOut))
                // The losing request is cancelled, which closes its connection.
                await server.waitUntil { $0.connectionsClosedByClient == 1 }
                #expect(clock.sleeperCount == 0)
            })
    }

    @Test func cancellingTheCallerEndsTheRequestAndItsDeadline() async throws {
        try await LoopbackHTTPServer.withServer(
            { _ in .hang },
            { server in
                let clock = ManualClock()
                let transport = URLSessionTransport(clock: clock)
                let pending = Task { await outcome(of: HTTPRequest(method: "GET", url: server.url("/slow")), through: transport) }
                await server.waitUntil { $0.requests.count == 1 }
                await clock.waitForSleepers(1)

                pending.cancel()
                #expect(await pending.value == .failure(.cancelled))
                await server.waitUntil { $0.connectionsClosedByClient == 1 }
                #expect(clock.sleeperCount == 0)
            })
    }

    @Test func aCallerCancelledBeforeSendingGetsCancelledWithoutTraffic() async throws {
        try await LoopbackHTTPServer.withServer(
            { _ in .response(200, "OK") },
            { server in
                let transport = URLSessionTransport(clock: ManualClock())
                let request = HTTPRequest(method: "GET", url: server.url("/ok"))
                let pending = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return await outcome(of: request, through: transport)
                }
                #expect(await pending.value == .failure(.cancelled))
                #expect(server.activity.requests.isEmpty)
            })
    }

    @Test func refusedConnectionIsConnectionFailedNamingOnlyTheServer() async throws {
        let port = try LoopbackHTTPServer.unusedPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/oauth/token?code=SECRETCODE&state=s"))
        let result = await outcome(of: HTTPRequest(method: "GET", url: url), through: URLSessionTransport(clock: ManualClock()))
        guard case .failure(.connectionFailed(let message)) = result else {
            Issue.record("expected connectionFailed, got \(result)")
            return
        }
        #expect(message.contains("127.0.0.1:\(port)"))
        #expect(!message.contains("SECRETCODE"))
        #expect(!message.contains("/oauth/token"))
    }

    @Test func bodyAnnouncedLargerThanTheCapIsRefused() async throws {
        try await LoopbackHTTPServer.withServer(
            { _ in
                .response(200, "OK", body: Data(repeating: 0x61, count: 4096))
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock(), maximumResponseSize: 1024)
                let result = await outcome(of: HTTPRequest(method: "GET", url: server.url("/big")), through: transport)
                #expect(result == .failure(.responseTooLarge(limit: 1024)))
            })
    }

    @Test func streamedBodyLargerThanTheCapIsRefusedWhileArriving() async throws {
        let head = Data("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n".utf8)
        try await LoopbackHTTPServer.withServer(
            { _ in
                .stream(head: head, chunk: Data(repeating: 0x62, count: 16_384), count: 64)
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock(), maximumResponseSize: 32_768)
                let result = await outcome(of: HTTPRequest(method: "GET", url: server.url("/stream")), through: transport)
                #expect(result == .failure(.responseTooLarge(limit: 32_768)))
            })
    }

    @Test func bodyOfExactlyTheCapIsAccepted() async throws {
        let head = Data("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n".utf8)
        try await LoopbackHTTPServer.withServer(
            { _ in
                .stream(head: head, chunk: Data(repeating: 0x63, count: 256), count: 4)
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock(), maximumResponseSize: 1024)
                let response = try await transport.send(HTTPRequest(method: "GET", url: server.url("/exact")))
                #expect(response.body == Data(repeating: 0x63, count: 1024))
            })
    }

    @Test func defaultCapIsOneMebibyte() async throws {
        try await LoopbackHTTPServer.withServer(
            { request in
                .response(200, "OK", body: Data(repeating: 0x64, count: request.target == "/at" ? 1 << 20 : (1 << 20) + 1))
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock())
                #expect(transport.maximumResponseSize == 1_048_576)
                let atCap = try await transport.send(HTTPRequest(method: "GET", url: server.url("/at")))
                #expect(atCap.body.count == 1 << 20)
                let over = await outcome(of: HTTPRequest(method: "GET", url: server.url("/over")), through: transport)
                #expect(over == .failure(.responseTooLarge(limit: 1 << 20)))
            })
    }

    @Test func concurrentRequestsEachGetTheirOwnResponse() async throws {
        try await LoopbackHTTPServer.withServer(
            { request in
                .response(200, "OK", body: Data(request.target.utf8))
            },
            { server in
                let transport = URLSessionTransport(clock: ManualClock())
                let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                    for index in 0..<20 {
                        group.addTask {
                            let response = try await transport.send(HTTPRequest(method: "GET", url: server.url("/n/\(index)")))
                            return (index, response.body)
                        }
                    }
                    return try await group.reduce(into: [Int: Data]()) { $0[$1.0] = $1.1 }
                }
                #expect(bodies.count == 20)
                for (index, body) in bodies {
                    #expect(body == Data("/n/\(index)".utf8))
                }
            })
    }

    @Test(arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "data:text/plain,hello"])
    func nonHTTPURLsAreRefusedWithoutBeingOpened(_ address: String) async throws {
        let url = try #require(URL(string: address))
        let result = await outcome(of: HTTPRequest(method: "GET", url: url), through: URLSessionTransport(clock: ManualClock()))
        guard case .failure(.connectionFailed(let message)) = result else {
            Issue.record("expected connectionFailed, got \(result)")
            return
        }
        #expect(!message.contains("passwd"))
    }

    @Test func nonPositiveDeadlineFailsBeforeAnythingIsSent() async throws {
        try await LoopbackHTTPServer.withServer(
            { _ in .response(200, "OK") },
            { server in
                let transport = URLSessionTransport(clock: ManualClock(), deadline: .zero)
                let result = await outcome(of: HTTPRequest(method: "GET", url: server.url("/ok")), through: transport)
                #expect(result == .failure(.timedOut))
                #expect(server.activity.requests.isEmpty)
            })
    }
}
