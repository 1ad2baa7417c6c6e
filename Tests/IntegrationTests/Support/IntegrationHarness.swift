import Foundation
import SessionKit
import SessionKitTesting
import Synchronization

/// Everything one integration test needs against one local provider: a discovered configuration,
/// real HTTP through a reroutable transport, a file store in a fresh directory, a presenter that
/// signs a unique user in, a test clock for the session's timers and a wall clock near real time.
struct IntegrationHarness {
    let environment: ProviderEnvironment
    let user: String
    /// The session's timers (handoff timeout, retry backoff) run on it; nothing waits in real time.
    let clock = TestClock()
    let wallClock = OffsetWallClock()
    /// Real HTTP to the provider; its deadline is only a safety net, in real time.
    let providerTransport: URLSessionTransport<ContinuousClock>
    let transport: ReroutableTransport
    let directory: URL
    let store: FileCredentialStore
    let configuration: SessionConfiguration

    /// - Parameter redirectURI: the redirect URI to configure; the environment's by default.
    static func make(
        _ environment: ProviderEnvironment, user prefix: String = "user", redirectURI: URL? = nil,
        configure: (inout SessionConfiguration) -> Void = { _ in }
    ) async throws -> IntegrationHarness {
        let providerTransport = URLSessionTransport(clock: ContinuousClock(), deadline: .seconds(20))
        let provider = try await ProviderConfiguration.discover(
            issuer: environment.issuer, clientID: environment.clientID, redirectURI: redirectURI ?? environment.redirectURI,
            scopes: ["openid", "profile", "email"], revocationEndpoint: environment.revocationEndpoint, transport: providerTransport)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-integration-\(UUID().uuidString)")
        var configuration = SessionConfiguration(provider: provider)
        configure(&configuration)
        return IntegrationHarness(
            environment: environment, user: "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())",
            providerTransport: providerTransport, transport: ReroutableTransport(provider: providerTransport), directory: directory,
            store: FileCredentialStore(directory: directory), configuration: configuration)
    }

    /// A new session over the same store, transport and clocks (a relaunch, when called again).
    func makeSession() -> Session {
        makeSession(presenter: LocalProviderPresenter(environment: environment, user: user, transport: providerTransport))
    }

    /// A new session like ``makeSession()``, with another presenter.
    func makeSession(presenter: any HandoffPresenter) -> Session {
        let wallClock = self.wallClock
        return Session(
            configuration: configuration, transport: transport, store: store, presenter: presenter,
            clock: clock, wallClock: { wallClock.now() }, random: SeededRandomNumberGenerator(seed: 7))
    }

    /// A client for checks made behind the session's back (replaying an old refresh token).
    func outOfBandClient() -> ProviderClient {
        let wallClock = self.wallClock
        return ProviderClient(configuration: configuration.provider, transport: providerTransport, now: { wallClock.now() })
    }

    func storedSession() async throws -> StoredSession? {
        try await store.load().session
    }

    /// The provider's verdict on an access token: 200 while valid, 401 once revoked.
    func userInfoStatus(_ accessToken: Secret) async throws -> Int {
        try await providerTransport.send(
            HTTPRequest(method: "GET", url: environment.userInfoEndpoint, headers: [("Authorization", "Bearer \(accessToken.value)")])
        ).status
    }

    /// Posts to a provider's test hook and returns the JSON answer.
    func post(_ url: URL) async throws -> [String: Any] {
        let response = try await providerTransport.send(HTTPRequest(method: "POST", url: url))
        guard (200...299).contains(response.status) else { throw HarnessError.unexpectedStatus(response.status, url.path) }
        return (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any] ?? [:]
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: directory)
    }
}

enum HarnessError: Error {
    case unexpectedStatus(Int, String)
}

/// Collects a session's transitions as they happen.
final class TransitionRecorder: Sendable {
    private let transitions = Locked<[SessionTransition]>([])

    func record(_ event: SessionEvent) {
        if case .transition(let transition) = event {
            transitions.withLock { $0.append(transition) }
        }
    }

    var reasons: [TransitionReason] { transitions.withLock { $0.map(\.reason) } }
}

/// The `kid` in a compact JWS header, without verifying anything.
func keyID(of jwt: Secret?) -> String? {
    guard let header = jwt?.value.split(separator: ".").first else { return nil }
    var base64 = header.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
    guard let data = Data(base64Encoded: base64),
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    else { return nil }
    return object["kid"] as? String
}
