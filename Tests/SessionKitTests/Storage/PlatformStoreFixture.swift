import Foundation
import SessionKitTesting

@testable import SessionKit

/// What the platform store's tests share: a record, sessions over a given store, a simulated
/// provider served over real HTTP (the short initialiser sends real requests), and a file scan.
enum PlatformStoreFixture {
    static let record = CredentialRecord(
        session: StoredSession(refreshToken: Secret("refresh-token-value"), issuer: "https://issuer.example", subject: "s", audience: ["c"])
    )

    /// A session over `store` with the simulated provider's configuration (restore needs no network).
    static func session(store: any CredentialStore) throws -> Session {
        let provider = try ProviderConfiguration.onePass(
            clientID: "sim-client", redirectURI: URL(string: "com.example.app://oauth/callback")!)
        return Session(
            configuration: SessionConfiguration(provider: provider), transport: ScriptedTransportStub(), store: store,
            presenter: ScriptedPresenter(authorize: { url, _, _ in url }), clock: TestClock(), wallClock: { Date(timeIntervalSince1970: 0) }
        )
    }

    /// `$XDG_DATA_HOME`, or `~/.local/share`: where the short initialiser's files go.
    static func dataBase() -> URL {
        let environment = ProcessInfo.processInfo.environment
        return environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSTemporaryDirectory()).appendingPathComponent(".local/share")
    }

    /// The short initialiser's directory for `clientID` (a name of letters, digits and dashes).
    static func dataDirectory(clientID: String) -> URL {
        dataBase().appendingPathComponent("sessionkit").appendingPathComponent(clientID)
    }

    /// Every regular file under `directory` whose bytes contain `secret`.
    static func files(under directory: URL, containing secret: String) -> [String] {
        let needle = Data(secret.utf8)
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in walker {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                let bytes = try? Data(contentsOf: url), bytes.range(of: needle) != nil
            else { continue }
            found.append(url.path)
        }
        return found
    }

    /// A simulated provider on a loopback port, for a session with real HTTP.
    final class ServedProvider: Sendable {
        let provider: SimulatedProvider<ContinuousClock>
        let clientID = "keyring-\(UUID().uuidString)"
        private let server: ProviderHTTPServer

        init() throws {
            server = try ProviderHTTPServer()
            let configuration = SimulatedProviderConfiguration(issuer: URL(string: server.origin)!, clientID: clientID)
            let provider = try SimulatedProvider(
                configuration: configuration, clock: ContinuousClock(), now: { Date() }, signingKeys: SimulatedProviderKeys.shared(count: 1)
            )
            self.provider = provider
            server.start { request in
                do {
                    return try await provider.send(request)
                } catch {
                    return HTTPResponse(status: 503)
                }
            }
        }

        /// The 1pass.dev profile at this provider's issuer.
        func configuration() throws -> ProviderConfiguration {
            try .onePass(clientID: clientID, redirectURI: provider.configuration.redirectURI, issuer: URL(string: server.origin)!)
        }

        func stop() {
            server.stop()
        }
    }
}

/// A transport no restore reaches: every request fails.
private struct ScriptedTransportStub: HTTPTransport {
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        throw .connectionFailed("no network in this test")
    }
}
