import Foundation
import SessionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The happy path against a real provider, in real time: sign in, refresh, sign out.
///
/// With a loopback redirect URI (`http://127.0.0.1/…`) the sign-in goes through the
/// ``LoopbackPresenter``: the browser's redirect comes back to the walkthrough by itself. With any
/// other redirect URI, or with `--paste`, the person pastes the URL the browser was redirected to.
enum RealProviderWalkthrough {
    struct Options {
        var issuer: String
        var clientID: String
        var redirectURI: URL
        var revocationEndpoint: URL?
        var json: Bool
        var paste = false
    }

    /// The loopback presenter's browser for a terminal: prints the URL on a line of its own (a
    /// script or a person opens it), and also opens the platform's browser where there is one.
    static let terminalBrowser = BrowserOpener { url throws(HandoffError) in
        FileHandle.standardError.write(
            Data("Open this URL in a browser and sign in; the answer comes back to the walkthrough by itself:\n".utf8))
        Narrator.write(url.absoluteString)
        try await BrowserOpener.platform?.open(url)
    }

    /// A presenter for a terminal: prints the authorization URL on a line of its own, then reads the
    /// callback URL the browser was redirected to from standard input.
    struct TerminalPresenter: HandoffPresenter {
        func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
            FileHandle.standardError.write(Data("Open this URL in a browser, sign in, then paste the URL you were redirected to:\n".utf8))
            Narrator.write(request.authorizationURL.absoluteString)
            guard let line = readLine(strippingNewline: true)?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
                throw .cancelled
            }
            guard let url = URL(string: line) else { throw .presentationFailed("that is not a URL") }
            return url
        }
    }

    static func presenter(for options: Options) -> any HandoffPresenter {
        guard !options.paste, LoopbackPresenter.canServe(options.redirectURI) else { return TerminalPresenter() }
        return LoopbackPresenter(opener: terminalBrowser)
    }

    static func run(_ options: Options) async -> Int32 {
        let clock = ContinuousClock()
        let transport = URLSessionTransport(clock: clock)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-walkthrough-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let provider = try await ProviderConfiguration.discover(
                issuer: options.issuer, clientID: options.clientID, redirectURI: options.redirectURI,
                scopes: ["openid", "profile", "email"], revocationEndpoint: options.revocationEndpoint, transport: transport)
            let session = Session(
                configuration: SessionConfiguration(provider: provider), transport: transport,
                store: FileCredentialStore(directory: directory), presenter: presenter(for: options), clock: clock,
                wallClock: { Date() })
            let narrator = Narrator(json: options.json, epoch: Date())
            narrator.begin("real-provider", summary: "sign in → refresh → sign out against \(options.issuer)")
            let lastReason = Locked<TransitionReason?>(nil)
            await session.addObserver { event in
                narrator.event(event)
                if case .transition(let transition) = event { lastReason.withLock { $0 = transition.reason } }
            }
            let identity = try await session.signIn()
            narrator.note("signed in as \(identity.subject)", at: Date())
            let token = try await session.refresh()
            narrator.note("refreshed; the new access token expires at \(token.expiresAt)", at: Date())
            try await session.signOut()
            // Say only what the provider confirmed, and exit non-zero when the server-first
            // sign-out the scenario claims did not happen.
            switch lastReason.withLock({ $0 }) {
            case .revocationConfirmed?:
                narrator.note("signed out; the provider confirmed the revocation of the refresh token", at: Date())
                return 0
            case .signedOutLocallyOnly(let why)?:
                narrator.note("signed out locally only; the provider was not told: \(why)", at: Date())
                return provider.revocationEndpoint == nil ? 0 : 1
            default:
                narrator.note("signed out; the provider's answer is unknown", at: Date())
                return 1
            }
        } catch {
            FileHandle.standardError.write(Data("walkthrough failed: \(error)\n".utf8))
            return 1
        }
    }
}
