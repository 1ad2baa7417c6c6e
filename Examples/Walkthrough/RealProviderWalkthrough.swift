import Foundation
import SessionKit
import SessionKitJOSE

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The happy path against a real provider, in real time: sign in, refresh, sign out.
///
/// With `--device` the sign-in is a device sign-in (RFC 8628): the walkthrough prints the
/// verification address and the user code, and the person approves on any device.
///
/// With a loopback redirect URI (`http://127.0.0.1/…`) the sign-in goes through the
/// ``LoopbackPresenter``: the browser's redirect comes back to the walkthrough by itself, on a port
/// the system picks, or on `--loopback-port N` for a provider that matches the registered port
/// exactly. With any other redirect URI, or with `--paste`, the person pastes the URL the browser
/// was redirected to.
enum RealProviderWalkthrough {
    struct Options {
        var issuer: String
        var clientID: String
        /// `nil` only for a device sign-in, which has no redirect.
        var redirectURI: URL?
        var revocationEndpoint: URL?
        var json: Bool
        var paste = false
        /// Sign in with the device authorization grant (RFC 8628) instead of a browser redirect.
        var device = false
        /// The device authorization endpoint, for a provider whose discovery document lists none.
        var deviceAuthorizationEndpoint: URL?
        /// The loopback listener's fixed port; `nil` for an ephemeral one (RFC 8252 §7.3).
        var loopbackPort: UInt16?
        /// How the client authenticates; a secret comes from a file or the environment.
        var clientAuthentication: ClientAuthentication = .none
        /// The session's DPoP policy (RFC 9449): `auto` is ``DPoPPolicy/whenSupported`` (the
        /// provider's discovery lists ES256), `required` refuses a `Bearer` answer.
        var dpop: DPoPPolicy = .off
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

        /// Prints the verification address and the user code, each on a line of its own, then
        /// returns: the session polls while the person approves elsewhere.
        func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError) {
            FileHandle.standardError.write(Data("On any device, open the address below and enter the code:\n".utf8))
            Narrator.write("verification_uri \((prompt.verificationURIComplete ?? prompt.verificationURI).absoluteString)")
            Narrator.write("user_code \(prompt.userCode)")
        }
    }

    static func presenter(for options: Options) -> any HandoffPresenter {
        guard !options.paste, !options.device, let redirectURI = options.redirectURI, LoopbackPresenter.canServe(redirectURI) else {
            return TerminalPresenter()
        }
        return LoopbackPresenter(port: options.loopbackPort ?? 0, opener: terminalBrowser)
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
            try options.clientAuthentication.check(against: provider)
            var configuration = SessionConfiguration(provider: provider)
            configuration.clientAuthentication = options.clientAuthentication
            // The session makes its own key at sign-in, as an app's would, on the session's clock; the
            // sign-out deletes it, and the run's directory goes with the run.
            configuration.dpop = options.dpop
            if options.device {
                // Some providers (django-oauth-toolkit 3.4) issue no id_token for this grant: the
                // UserInfo answer then names the person.
                configuration.requireIDTokenForDeviceSignIn = false
            }
            let session = Session(
                configuration: configuration, transport: transport,
                store: FileCredentialStore(directory: directory), presenter: presenter(for: options), clock: clock)
            let narrator = Narrator(json: options.json, epoch: Date())
            let how = options.device ? "device sign-in" : "sign in"
            narrator.begin("real-provider", summary: "\(how) → refresh → sign out against \(options.issuer)")
            let lastReason = Locked<TransitionReason?>(nil)
            session.addObserver { event in
                narrator.event(event)
                if case .transition(let transition) = event { lastReason.withLock { $0 = transition.reason } }
            }
            let identity = try await options.device ? session.signInWithDeviceCode() : session.signIn()
            let vouching = identity.source == .idToken ? "the verified id_token" : "UserInfo, no id_token"
            narrator.note("signed in as \(identity.subject) (identity from \(vouching))", at: Date())
            if options.dpop != .off { try await note(dpopOf: session, narrator) }
            let token = try await session.refresh()
            narrator.note("refreshed; the new access token expires at \(token.expiresAt)", at: Date())
            if options.dpop != .off { try await note(dpopOf: session, narrator) }
            try await session.signOut()
            // Say only what the provider confirmed, and exit non-zero when the server-first
            // sign-out the scenario claims did not happen.
            let reason = lastReason.withLock({ $0 })
            switch reason?.code {
            case .revocationConfirmed?:
                narrator.note("signed out; the provider confirmed the revocation of the refresh token", at: Date())
                return 0
            case .signedOutLocallyOnly?:
                let why = reason?.error.map { "\($0)" } ?? "no reason given"
                narrator.note("signed out locally only; the provider was not told: \(why)", at: Date())
                if provider.revocationEndpoint == nil {
                    FileHandle.standardError.write(
                        Data(
                            "walkthrough: the refresh token was not revoked: the provider lists no revocation endpoint; pass --revocation-endpoint URL\n"
                                .utf8))
                }
                return 1
            default:
                narrator.note("signed out; the provider's answer is unknown", at: Date())
                return 1
            }
        } catch {
            FileHandle.standardError.write(Data("walkthrough: against \(options.issuer) failed: \(error)\n".utf8))
            return 1
        }
    }

    /// What DPoP came to: whether the provider bound the access token to the session's key (the
    /// scheme ``Session/authorize(_:)`` presents it under), and how far the provider's clock is
    /// from this machine's. Never the key, a token, a proof or a nonce.
    static func note(dpopOf session: Session, _ narrator: Narrator) async throws {
        let probe = try await session.authorize(URLRequest(url: session.configuration.provider.tokenEndpoint))
        let binding =
            probe.value(forHTTPHeaderField: "Authorization")?.hasPrefix("DPoP ") == true
            ? "the access token is DPoP-bound to the session's key (token_type DPoP)"
            : "the access token is Bearer: the provider did not bind it (no DPoP in discovery, or proofs ignored)"
        let clock =
            session.serverClock.latestEstimate.map { estimate in
                "the provider's clock is \(Narrator.format(estimate.offset)) s from this machine's"
                    + (estimate.isApplied ? "" : " (beyond the bound, not applied)")
            } ?? "the provider sent no usable Date"
        narrator.note("\(binding); \(clock)", at: Date())
    }
}
