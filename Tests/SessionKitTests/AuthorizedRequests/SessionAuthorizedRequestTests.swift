import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's own requests to a resource server: the session's credentials on them (Bearer, or
/// DPoP with a proof carrying `ath` and the resource's nonce), and the answers handled on send
/// (one refresh on `invalid_token`, one retry on `use_dpop_nonce`).
@Suite("Authorized requests", .timeLimit(.minutes(1)))
struct SessionAuthorizedRequestTests {
    static let resourceURL = URL(string: "https://api.sim.1pass.test/v1/me?fields=sub#top")!

    /// A signed-in environment with a resource server; with `dpop`, a session signing with a fresh
    /// key against a provider that binds its tokens.
    private static func signedIn(dpop: Bool) async throws -> (SimulatedSessionEnvironment, DPoPKeyHolder?) {
        var provider = SimulatedProviderConfiguration()
        provider.resourceServer = SimulatedResourceServer()
        if dpop { provider.dpop = SimulatedProviderDPoP() }
        let keys = dpop ? DPoPKeyHolder(key: try P256PrivateKey.generate()) : nil
        let clock = TestClock()
        let env = try SimulatedSessionEnvironment(provider: provider, clock: clock) {
            if let keys { $0.requestMiddleware = [DPoPMiddleware(keys: keys, now: { clock.wallClockNow() })] }
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        return (env, keys)
    }

    private static func accessToken(_ env: SimulatedSessionEnvironment) throws -> String {
        try #require(env.store.record.session?.accessToken?.value)
    }

    private static func claims(ofProof proof: String) throws -> JSONObject {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        return try JSONParser.parseObject(try Base64URL.decode(parts[1]))
    }

    @Test("a Bearer session puts its access token on the request and nothing else")
    func bearerAuthorization() async throws {
        let (env, _) = try await Self.signedIn(dpop: false)
        var request = URLRequest(url: Self.resourceURL)
        request.setValue("Bearer stale", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let authorized = try await env.session.authorize(request)
        #expect(authorized.value(forHTTPHeaderField: "Authorization") == "Bearer " + (try Self.accessToken(env)))
        #expect(authorized.value(forHTTPHeaderField: "DPoP") == nil)
        #expect(authorized.value(forHTTPHeaderField: "Accept") == "application/json")

        let response = try await env.session.send(request)
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"sub":"alice"}"#)
        #expect(env.provider.resourceAcceptedCount == 1)
        try await env.finish()
    }

    @Test("a DPoP session presents its bound token under DPoP with a proof for the request, with ath")
    func dpopAuthorization() async throws {
        let (env, keys) = try await Self.signedIn(dpop: true)
        var request = URLRequest(url: Self.resourceURL)
        request.httpMethod = "GET"
        let authorized = try await env.session.authorize(request)
        let token = try Self.accessToken(env)
        #expect(authorized.value(forHTTPHeaderField: "Authorization") == "DPoP " + token)
        let proof = try #require(authorized.value(forHTTPHeaderField: "DPoP"))
        let claims = try Self.claims(ofProof: proof)
        #expect(claims["htm"]?.stringValue == "GET")
        #expect(claims["htu"]?.stringValue == "https://api.sim.1pass.test/v1/me")
        #expect(claims["ath"]?.stringValue == DPoPProofSigner.accessTokenHash(token))
        #expect(claims["nonce"] == nil)
        let header = try JSONParser.parseObject(try Base64URL.decode(proof.split(separator: ".")[0]))
        #expect(header["typ"]?.stringValue == "dpop+jwt")
        #expect(try #require(keys).thumbprint != nil)

        // The request as authorized is what the resource server accepts.
        let response = try await env.provider.send(
            HTTPRequest(
                method: "GET", url: Self.resourceURL,
                headers: [("Authorization", "DPoP " + token), ("DPoP", proof)]))
        #expect(response.status == 200)
        // A proof is good once: the same one again is a replay.
        let replay = try await env.provider.send(
            HTTPRequest(method: "GET", url: Self.resourceURL, headers: [("Authorization", "DPoP " + token), ("DPoP", proof)]))
        #expect(replay.status == 401)
        #expect(replay.header("WWW-Authenticate")?.contains("invalid_dpop_proof") == true)
        try await env.finish()
    }

    @Test("a bound token sent as Bearer is refused by the resource server")
    func boundTokenAsBearerIsRefused() async throws {
        let (env, _) = try await Self.signedIn(dpop: true)
        let response = try await env.provider.send(
            HTTPRequest(method: "GET", url: Self.resourceURL, headers: [("Authorization", "Bearer " + (try Self.accessToken(env)))]))
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate")?.hasPrefix("DPoP ") == true)
        try await env.finish()
    }

    @Test("a nonce the resource demands costs one retry, is kept for its origin, and is sent from then on")
    func resourceNonce() async throws {
        let (env, keys) = try await Self.signedIn(dpop: true)
        env.provider.demandResourceNonce()
        let request = URLRequest(url: Self.resourceURL)
        let first = try await env.session.send(request)
        #expect(first.status == 200)
        #expect(env.provider.resourceRequestCount == 2)

        let second = try await env.session.send(request)
        #expect(second.status == 200)
        #expect(env.provider.resourceRequestCount == 3)
        // The resource's nonce is apart from the authorization server's.
        let authorized = try await env.session.authorize(request)
        let nonce = try Self.claims(ofProof: try #require(authorized.value(forHTTPHeaderField: "DPoP")))["nonce"]?.stringValue
        #expect(nonce != nil)
        #expect(keys != nil)
        #expect(env.provider.requestCount(grantType: "refresh_token") == 0)
        try await env.finish()
    }

    @Test("invalid_token costs one refresh and one retry, with DPoP and with Bearer", arguments: [false, true])
    func invalidTokenRefreshesOnce(dpop: Bool) async throws {
        let (env, _) = try await Self.signedIn(dpop: dpop)
        let before = try Self.accessToken(env)
        env.provider.distrustIssuedAccessTokens()
        let response = try await env.session.send(URLRequest(url: Self.resourceURL))
        #expect(response.status == 200)
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(env.provider.resourceRequestCount == 2)
        #expect(try Self.accessToken(env) != before)
        try await env.finish()
    }

    @Test("never more than one refresh and one nonce retry per call: a resource that keeps refusing gets its 401 back")
    func boundedRetries() async throws {
        let (env, _) = try await Self.signedIn(dpop: true)
        env.provider.demandResourceNonce()
        env.provider.rejectResourceTokens(times: 10)
        let response = try await env.session.send(URLRequest(url: Self.resourceURL))
        #expect(response.status == 401)
        #expect(response.header("WWW-Authenticate")?.contains("invalid_token") == true)
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(env.provider.resourceRequestCount == 2)
        #expect(env.session.stage == .active)
        try await env.finish()
    }

    @Test("a nonce demand and a refused token in one call: three requests, one refresh")
    func nonceAndRefresh() async throws {
        let (env, _) = try await Self.signedIn(dpop: true)
        env.provider.demandResourceNonce()
        env.provider.distrustIssuedAccessTokens()
        let response = try await env.session.send(URLRequest(url: Self.resourceURL))
        #expect(response.status == 200)
        #expect(env.provider.resourceRequestCount == 3)
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        try await env.finish()
    }

    @Test("concurrent callers refused the same token share one refresh")
    func concurrentCallersShareOneRefresh() async throws {
        let (env, _) = try await Self.signedIn(dpop: true)
        env.provider.distrustIssuedAccessTokens()
        env.provider.script(.slow(.seconds(1)), on: .token)
        let callers = 20
        let statuses = Task {
            await withTaskGroup(of: Int.self) { group in
                for _ in 0..<callers {
                    group.addTask { (try? await env.session.send(URLRequest(url: Self.resourceURL)).status) ?? 0 }
                }
                return await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        await env.waitForWaitingCallers(callers)
        await env.advanceToNextSleeper()
        #expect(await statuses.value == Array(repeating: 200, count: callers))
        #expect(env.provider.requestCount(grantType: "refresh_token") == 1)
        // Each caller was answered once with the new token; those that sent the old one before the
        // refresh began were refused once (a caller that came while the refresh ran waited for it).
        #expect(env.provider.resourceAcceptedCount == callers)
        #expect((callers + 1)...(2 * callers) ~= env.provider.resourceRequestCount)
        try await env.finish()
    }

    @Test("typed errors: no session, a URL without an origin, a streamed body, a transport failure")
    func typedErrors() async throws {
        let env = try SimulatedSessionEnvironment()
        do {
            _ = try await env.session.authorize(URLRequest(url: Self.resourceURL))
            Issue.record("a request was authorized without a session")
        } catch {
            #expect(error.code == .session)
            #expect(error.sessionError == .notSignedIn)
        }
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn()
        do {
            _ = try await env.session.authorize(URLRequest(url: URL(string: "file:///etc/hosts")!))
            Issue.record("a file URL was authorized")
        } catch {
            #expect(error == .invalidRequest)
        }
        var streamed = URLRequest(url: Self.resourceURL)
        streamed.httpBodyStream = InputStream(data: Data("x".utf8))
        do {
            _ = try await env.session.send(streamed)
            Issue.record("a streamed body was sent")
        } catch {
            #expect(error == .invalidRequest)
        }
        // No resource server is configured: no host answers.
        do {
            _ = try await env.session.send(URLRequest(url: Self.resourceURL))
            Issue.record("a request to no host succeeded")
        } catch {
            #expect(error.code == .transport)
            #expect(!String(describing: error).contains(try Self.accessToken(env)))
        }
        try await env.finish()
    }
}
