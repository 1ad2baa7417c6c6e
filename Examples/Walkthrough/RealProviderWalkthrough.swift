import Foundation
import SessionKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The happy path against a real provider, in real time: sign in (a person completes the
/// authorization in a browser and pastes the callback URL, or with `--device` approves a device
/// code on any device), refresh, sign out.
enum RealProviderWalkthrough {
    struct Options {
        var issuer: String
        var clientID: String
        var redirectURI: URL?
        var revocationEndpoint: URL?
        var json: Bool
        /// Sign in with the device authorization grant (RFC 8628) instead of a browser redirect.
        var device = false
        /// The device authorization endpoint, for a provider whose discovery document lists none.
        var deviceAuthorizationEndpoint: URL?
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

        /// Prints the verification address and the user code, each on a line of its own, then
        /// returns: the session polls while the person approves elsewhere.
        func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError) {
            FileHandle.standardError.write(Data("On any device, open the address below and enter the code:\n".utf8))
            Narrator.write("verification_uri \((prompt.verificationURIComplete ?? prompt.verificationURI).absoluteString)")
            Narrator.write("user_code \(prompt.userCode)")
        }
    }

    static func run(_ options: Options) async -> Int32 {
        let clock = ContinuousClock()
        let transport = URLSessionTransport(clock: clock)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-walkthrough-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            // A device has no redirect URI of its own; discovery still wants one to check the profile.
            var provider = try await ProviderConfiguration.discover(
                issuer: options.issuer, clientID: options.clientID,
                redirectURI: options.redirectURI ?? URL(string: "http://127.0.0.1/unused")!,
                scopes: ["openid", "profile", "email"], revocationEndpoint: options.revocationEndpoint, transport: transport)
            if let endpoint = options.deviceAuthorizationEndpoint { provider.deviceAuthorizationEndpoint = endpoint }
            var configuration = SessionConfiguration(provider: provider)
            if options.device {
                // Some providers (django-oauth-toolkit 3.4) issue no id_token for this grant: the
                // UserInfo answer then names the person, and refreshes may come without one too.
                configuration.requireIDTokenForDeviceSignIn = false
                configuration.requireIDTokenOnRefresh = false
            }
            let session = Session(
                configuration: configuration, transport: transport,
                store: FileCredentialStore(directory: directory), presenter: TerminalPresenter(), clock: clock,
                wallClock: { Date() })
            let narrator = Narrator(json: options.json, epoch: Date())
            let how = options.device ? "device sign-in" : "sign in"
            narrator.begin("real-provider", summary: "\(how) → refresh → sign out against \(options.issuer)")
            await session.addObserver { narrator.event($0) }
            let identity = try await options.device ? session.signInWithDeviceCode() : session.signIn()
            narrator.note(
                "signed in as \(identity.subject) (identity from \(identity.source == .idToken ? "the verified id_token" : "UserInfo, no id_token"))",
                at: Date())
            let token = try await session.refresh()
            narrator.note("refreshed; the new access token expires at \(token.expiresAt)", at: Date())
            try await session.signOut()
            narrator.note("signed out; the refresh token was revoked at the provider", at: Date())
            return 0
        } catch {
            FileHandle.standardError.write(Data("walkthrough failed: \(error)\n".utf8))
            return 1
        }
    }
}
