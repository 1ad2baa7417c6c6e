import Foundation
import SessionKit

/// The session a mode runs: a file store, real HTTP on a continuous clock, the provider's
/// configuration (discovered, or the 1pass.dev profile for the simulated provider).
struct ToolSession {
    let session: Session
    let transport: TracingTransport

    static func make(_ options: ToolOptions) async throws -> ToolSession {
        let trace = options.flag("trace")
        let store = TracingStore(base: FileCredentialStore(directory: URL(fileURLWithPath: try options.string("store"))), trace: trace)
        let transport = TracingTransport(
            base: URLSessionTransport(clock: ContinuousClock()), trace: trace, tag: options.optionalString("tag"))
        let issuer = try options.string("issuer")
        let clientID = try options.string("client-id")
        let redirectURI = try options.url("redirect-uri")
        let provider: ProviderConfiguration
        switch options.optionalString("profile") {
        case "onepass"?:
            guard let issuerURL = URL(string: issuer) else { throw ToolOptions.Failure.usage("--issuer is not a URL") }
            provider = try ProviderConfiguration.onePass(clientID: clientID, redirectURI: redirectURI, issuer: issuerURL)
        case nil:
            let revocation = options.optionalString("revocation-endpoint") == nil ? nil : try options.url("revocation-endpoint")
            provider = try await ProviderConfiguration.discover(
                issuer: issuer, clientID: clientID, redirectURI: redirectURI, scopes: ["openid", "profile", "email"],
                revocationEndpoint: revocation, transport: transport)
        case let other?:
            throw ToolOptions.Failure.usage("unknown profile \(other)")
        }
        let configuration = SessionConfiguration(provider: provider)
        let deviceKeys = provider.deviceKeyExchangeEndpoint.map { endpoint in
            DeviceKeyManager(
                endpoint: endpoint, platform: configuration.devicePlatform, transport: transport, store: store,
                now: { Date() })
        }
        let presenter = AuthorizationPresenter(transport: transport, user: options.optionalString("user") ?? "crash-user")
        let session = Session(
            configuration: configuration, transport: transport, store: store, presenter: presenter,
            deviceKeys: deviceKeys.map { .custom($0) } ?? .none,
            clock: ContinuousClock(), wallClock: { Date() })
        return ToolSession(session: session, transport: transport)
    }
}

extension Session {
    /// `restore()`, then the end of what it resumed in the background (a journaled sign-out or
    /// deletion, a due or incomplete session's refresh): the stage the launch settled in, `active`
    /// or `signedOut`.
    func restoreAndSettle() async throws(SessionError) -> SessionStage {
        // Subscribed first, so no transition after the restore is missed.
        let events = events()
        let stage = try await restore()
        guard stage != .active && stage != .signedOut else { return stage }
        for await event in events {
            if case .transition(let transition) = event, transition.reason != .current,
                transition.to == .active || transition.to == .signedOut
            {
                return transition.to
            }
        }
        return self.stage
    }
}
