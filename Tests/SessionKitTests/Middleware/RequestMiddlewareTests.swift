import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Synchronization
import Testing

/// What a middleware saw: the endpoint and the request's method and path (never a header value or body).
struct SeenRequest: Equatable, CustomStringConvertible {
    var endpoint: ProviderEndpoint
    var method: String
    var path: String

    var description: String { "\(endpoint) \(method) \(path)" }
}

/// A value shared between a test and the middleware it configured.
final class SharedValue<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value { storage.withLock { $0 } }

    func update(_ change: (inout Value) -> Void) {
        storage.withLock { change(&$0) }
    }
}

/// Records every request it passes on, under a label, into a shared log.
final class RecordingMiddleware: RequestMiddleware {
    let label: String
    let log: SharedValue<[String]>
    private let seenRequests = SharedValue<[SeenRequest]>([])

    init(_ label: String = "m", log: SharedValue<[String]> = SharedValue([])) {
        self.label = label
        self.log = log
    }

    var seen: [SeenRequest] { seenRequests.value }

    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        seenRequests.update { $0.append(SeenRequest(endpoint: endpoint, method: request.method, path: request.url.path)) }
        log.update { $0.append("\(label) request") }
        let response = try await next(request)
        log.update { $0.append("\(label) response \(response.status)") }
        return response
    }
}

/// Adds one header to every request.
struct HeaderMiddleware: RequestMiddleware {
    var name: String
    var value: String

    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        var request = request
        request.headers.append((name, value))
        return try await next(request)
    }
}

/// Fails every request to one endpoint without sending it.
struct FailingMiddleware: RequestMiddleware {
    var endpoint: ProviderEndpoint
    var error: ProviderError

    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        if endpoint == self.endpoint { throw error }
        return try await next(request)
    }
}

/// The request seam between the provider client and the transport.
@Suite("Request middleware")
struct RequestMiddlewareTests {
    /// A client on a simulated provider with `middleware`, and the provider's raw transport.
    private func client(_ fixture: ProviderFixture, _ middleware: [any RequestMiddleware]) throws -> ProviderClient {
        let clock = fixture.clock
        return ProviderClient(
            configuration: try fixture.provider.providerConfiguration(), transport: fixture.provider, middleware: middleware,
            now: { clock.wallClockNow() })
    }

    @Test("every endpoint the client calls passes the middleware, named as what it is")
    func everyEndpoint() async throws {
        let fixture = try ProviderFixture()
        let recorder = RecordingMiddleware()
        let client = try client(fixture, [recorder])

        let pkce = try PKCE.generate()
        let callback = try fixture.provider.authorize(
            client.authorizationURL(codeChallenge: pkce.challenge, state: "s", nonce: "n"), subject: "alice")
        let tokens = try await client.exchangeCode(try ProviderFixture.code(in: callback), codeVerifier: Secret(pkce.verifier))
        let refreshToken = try #require(tokens.refreshToken)
        _ = try await client.fetchKeys()
        _ = try await client.fetchUserInfo(accessToken: tokens.accessToken, expectedSubject: "alice")
        let refreshed = try await client.refresh(refreshToken)
        let device = try #require(try await client.requestDeviceAuthorization())
        _ = try? await client.pollDeviceToken(device)
        _ = try? await client.disconnect(deviceKey: Secret("not-a-device-key"))
        _ = try await client.revoke(try #require(refreshed.refreshToken))
        _ = try? await client.anonymousBootstrap(AnonymousBootstrapRequest(deviceID: "device-1"))

        let configuration = try fixture.provider.providerConfiguration()
        let expected: [SeenRequest] = [
            SeenRequest(endpoint: .token, method: "POST", path: configuration.tokenEndpoint.path),
            SeenRequest(endpoint: .keySet, method: "GET", path: configuration.jwksURI.path),
            SeenRequest(endpoint: .userInfo, method: "GET", path: try #require(configuration.userInfoEndpoint?.path)),
            SeenRequest(endpoint: .token, method: "POST", path: configuration.tokenEndpoint.path),
            SeenRequest(
                endpoint: .deviceAuthorization, method: "POST", path: try #require(configuration.deviceAuthorizationEndpoint?.path)),
            SeenRequest(endpoint: .token, method: "POST", path: configuration.tokenEndpoint.path),
            SeenRequest(endpoint: .disconnect, method: "DELETE", path: try #require(configuration.disconnectEndpoint?.path)),
            SeenRequest(endpoint: .revocation, method: "POST", path: try #require(configuration.revocationEndpoint?.path)),
            SeenRequest(
                endpoint: .anonymousBootstrap, method: "POST", path: try #require(configuration.anonymousBootstrap?.endpoint.path)),
        ]
        #expect(recorder.seen == expected)
        #expect(
            Set(recorder.seen.map(\.endpoint).map(\.name))
                == ["token", "jwks", "userinfo", "device_authorization", "disconnect", "revocation", "anonymous_bootstrap"])
    }

    @Test("the first middleware is the outermost: it sees the request first and the response last")
    func ordering() async throws {
        let fixture = try ProviderFixture()
        let log = SharedValue<[String]>([])
        let client = try client(fixture, [RecordingMiddleware("outer", log: log), RecordingMiddleware("inner", log: log)])
        _ = try await client.fetchKeys()
        #expect(log.value == ["outer request", "inner request", "inner response 200", "outer response 200"])
    }

    @Test("a header a middleware adds reaches the transport, after the client's own headers")
    func headersReachTheTransport() async throws {
        let transport = RecordingTransport(always: .json(200, #"{"keys":[]}"#))
        let client = ProviderClient(
            configuration: try ProviderTestKeys.configuration(), transport: transport,
            middleware: [HeaderMiddleware(name: "X-First", value: "1"), HeaderMiddleware(name: "X-Second", value: "2")],
            now: { Date(timeIntervalSince1970: 0) })
        _ = try await client.fetchKeys()
        let sent = try #require(transport.requests.first)
        #expect(sent.headers.map(\.name) == ["Accept", "X-First", "X-Second"])
        #expect(sent.header("x-first") == "1" && sent.header("x-second") == "2")
    }

    @Test("an error a middleware throws reaches the caller as that provider error, and nothing is sent")
    func errorsSurfaceTyped() async throws {
        let transport = RecordingTransport(always: .json(200, #"{"keys":[]}"#))
        let failure = ProviderError.transport(.connectionFailed("proxy refused"))
        let client = ProviderClient(
            configuration: try ProviderTestKeys.configuration(), transport: transport,
            middleware: [FailingMiddleware(endpoint: .token, error: failure)], now: { Date(timeIntervalSince1970: 0) })
        await #expect(throws: failure) { try await client.refresh(Secret("rt")) }
        #expect(transport.requests.isEmpty)
        #expect(failure.isTransient)
        // Other endpoints pass.
        _ = try await client.fetchKeys()
        #expect(transport.requests.count == 1)
    }

    @Test("a transport failure reaches a middleware from next as a provider error, which it may pass on")
    func transportErrorsPassThrough() async throws {
        let transport = RecordingTransport { _ in .failure(.timedOut) }
        let recorder = RecordingMiddleware()
        let client = ProviderClient(
            configuration: try ProviderTestKeys.configuration(), transport: transport, middleware: [recorder],
            now: { Date(timeIntervalSince1970: 0) })
        await #expect(throws: ProviderError.transport(.timedOut)) { try await client.fetchKeys() }
        #expect(recorder.seen.map(\.endpoint) == [.keySet])
    }

    @Test("a guest bootstrap refused by a middleware is a typed bootstrap error")
    func bootstrapErrors() async throws {
        let fixture = try ProviderFixture()
        let denied = ProviderError.http(status: 403, error: "denied", retryAfterSeconds: nil, excerpt: "")
        let refused = try client(fixture, [FailingMiddleware(endpoint: .anonymousBootstrap, error: denied)])
        await #expect(throws: AnonymousBootstrapError.rejected(status: 403, error: "denied")) {
            try await refused.anonymousBootstrap(AnonymousBootstrapRequest(deviceID: "device-1"))
        }
        let offline = try client(fixture, [FailingMiddleware(endpoint: .anonymousBootstrap, error: .transport(.timedOut))])
        await #expect(throws: AnonymousBootstrapError.transport(.timedOut)) {
            try await offline.anonymousBootstrap(AnonymousBootstrapRequest(deviceID: "device-1"))
        }
        #expect(fixture.provider.requestCount(for: .anonymousBootstrap) == 0)
    }

    @Test("a session's configured chain carries its sign-in, refresh and sign-out requests")
    func sessionUsesTheChain() async throws {
        let recorder = RecordingMiddleware()
        let env = try SimulatedSessionEnvironment { $0.requestMiddleware = [recorder, HeaderMiddleware(name: "X-App", value: "1")] }
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        _ = try await env.session.refresh()
        try await env.session.signOut()
        // Sign-in: the code exchange, then the keys its id_token needs; refresh: cached keys; sign-out: revocation.
        #expect(recorder.seen.map(\.endpoint) == [.token, .keySet, .token, .revocation])
    }

    @Test("a session's refresh failed by a middleware is the transient provider error it threw: retried, session kept")
    func sessionRefreshFailedByAMiddleware() async throws {
        /// Fails the next `remaining` token requests as a connection failure.
        struct Offline: RequestMiddleware {
            let remaining: SharedValue<Int>
            func intercept(
                _ request: HTTPRequest, endpoint: ProviderEndpoint,
                next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
            ) async throws(ProviderError) -> HTTPResponse {
                var fail = false
                remaining.update { count in
                    fail = endpoint == .token && count > 0
                    if fail { count -= 1 }
                }
                if fail { throw .transport(.connectionFailed("offline")) }
                return try await next(request)
            }
        }
        let remaining = SharedValue(0)
        let env = try SimulatedSessionEnvironment { $0.requestMiddleware = [Offline(remaining: remaining)] }
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        await env.startRecording()
        remaining.update { $0 = 1 }
        let grantsBefore = env.provider.requestCount(grantType: "refresh_token")
        let session = env.session
        let refresh = Task { await SessionCallResult { () async throws(SessionError) in try await session.refresh() } }
        await env.advanceToNextSleeper()
        let result = await refresh.value
        #expect(result.error == nil)
        #expect(result.value != nil)
        #expect(env.retries.map(\.because) == [.provider(.transport(.connectionFailed("offline")))])
        #expect(env.session.stage == .active)
        // The refused attempt never reached the provider; the retry did.
        #expect(env.provider.requestCount(grantType: "refresh_token") == grantsBefore + 1)
    }
}
