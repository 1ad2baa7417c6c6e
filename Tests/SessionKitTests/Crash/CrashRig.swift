import Foundation
import SessionKit
import SessionKitTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A simulated provider served over loopback HTTP from the test process, a store directory, and
/// the means to run `SessionKitCrashTool` children against both and check the store after each.
///
/// The provider's state lives here, so it survives every killed child. Its clocks are real (the
/// children are real processes in real time); nothing waits on them: token lifetimes are an hour.
final class CrashRig: Sendable {
    /// What a fresh checker found after a child died.
    enum Recovery: Equatable {
        /// A stored session that restored and refreshed; `windowHit` when the provider had rotated
        /// past what the store held, so the replay needed the reuse grace period.
        case active(windowHit: Bool)
        /// A journaled sign-out or deletion that `restore()` completed.
        case pendingCompleted(PendingOperation)
        /// Nothing stored, as the child's last step allows.
        case signedOut
    }

    enum Outcome: Equatable {
        case recovered(Recovery)
        case lost(String)
        /// A journaled deletion whose disconnect had reached the provider, refused on resume
        /// because the device-key exchange rejects the revoked access token (a known issue of
        /// `Session`); the next launch finds the refresh token rejected and ends signed out.
        case deletionRefusedAfterDisconnect

        /// Whether the checker left a restored, active session in the store.
        var leavesActiveSession: Bool {
            if case .recovered(.active) = self { return true }
            return false
        }
    }

    static let subject = "crash-user"

    let provider: SimulatedProvider<ContinuousClock>
    let server: ProviderHTTPServer
    let gate = ChildGate()
    let directory: TemporaryDirectory
    let configuration: SessionConfiguration
    private let tool: URL

    init(gracePeriod: Duration?) throws {
        tool = try Self.toolURL()
        server = try ProviderHTTPServer()
        directory = try TemporaryDirectory()
        let issuer = URL(string: server.origin)!
        let providerConfiguration = SimulatedProviderConfiguration(issuer: issuer, refreshTokenReuseGracePeriod: gracePeriod)
        provider = try SimulatedProvider(
            configuration: providerConfiguration, clock: ContinuousClock(), now: { Date() },
            signingKeys: SimulatedProviderKeys.shared(count: 1))
        configuration = SessionConfiguration(
            provider: try .onePass(clientID: providerConfiguration.clientID, redirectURI: providerConfiguration.redirectURI, issuer: issuer)
        )
        let provider = provider
        let gate = gate
        server.start { request in
            guard gate.admit(tag: request.header("X-Crash-Tag")) else { return HTTPResponse(status: 503) }
            defer { gate.leave() }
            return await Self.answer(request, provider: provider, gate: gate)
        }
    }

    /// Stops the server and removes the store directory.
    func tearDown() {
        server.stop()
        directory.remove()
    }

    var storeURL: URL { directory.storeURL }

    /// The authorization page approves as the user the `X-Test-User` header names; everything
    /// else is the provider's HTTP API. A token request may fire the gate's armed kill.
    private static func answer(
        _ request: HTTPRequest, provider: SimulatedProvider<ContinuousClock>, gate: ChildGate
    ) async -> HTTPResponse {
        if request.method == "GET", request.url.path == SimulatedProviderEndpoint.authorizationPath {
            do {
                let callback = try provider.authorize(request.url, subject: request.header("X-Test-User") ?? subject)
                return HTTPResponse(status: 302, headers: ["Location": callback.absoluteString])
            } catch {
                return HTTPResponse(status: 400)
            }
        }
        let response: HTTPResponse
        do {
            response = try await provider.send(request)
        } catch {
            return HTTPResponse(status: 502)
        }
        await gate.answered(kind: kind(of: request))
        return response
    }

    /// A request's kind as the tool names it: the last path segment, with the grant type for the
    /// token endpoint (`token:refresh_token`).
    static func kind(of request: HTTPRequest) -> String {
        let segments = request.url.path.split(separator: "/")
        if segments.contains("connected_apps") { return "disconnect" }
        let name = segments.last.map(String.init) ?? ""
        guard name == "token", let body = request.body else { return name }
        let grant = String(decoding: body, as: UTF8.self).split(separator: "&")
            .first { $0.hasPrefix("grant_type=") }
            .map { String($0.dropFirst("grant_type=".count)) }
        return grant.map { "token:\($0)" } ?? name
    }

    // MARK: Children

    /// `SessionKitCrashTool`, built next to the test binary.
    static func toolURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("SessionKitCrashTool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw StoreToolProcess.LaunchError.toolNotFound
    }

    private func commonArguments(tag: String) -> [String] {
        [
            "--store", directory.storePath, "--issuer", server.origin, "--client-id", configuration.provider.clientID,
            "--redirect-uri", configuration.provider.redirectURI.absoluteString, "--profile", "onepass", "--tag", tag,
        ]
    }

    /// Starts a `lifecycle-loop` child with tracing; the gate admits its requests from now on.
    ///
    /// Given a request kind, the child is killed as soon as the provider decided its first such request.
    func startLifecycle(tag: String, seed: Int, refreshes: Int = 3, killAtFirstAnswerTo kind: String? = nil) throws -> StoreToolProcess {
        try start(
            tag: tag,
            ["lifecycle-loop"] + commonArguments(tag: tag) + [
                "--user", Self.subject, "--refreshes", "\(refreshes)", "--seed", "\(seed)", "--trace",
            ], arming: kind)
    }

    /// Starts a `refresh-loop` child; the gate admits its requests from now on and, given a
    /// request kind, kills the child as soon as the provider decided its first such request.
    func startRefreshLoop(tag: String, count: Int, killAtFirstAnswerTo kind: String? = nil) throws -> StoreToolProcess {
        try start(tag: tag, ["refresh-loop"] + commonArguments(tag: tag) + ["--count", "\(count)"], arming: kind)
    }

    private func start(tag: String, _ arguments: [String], arming kind: String? = nil) throws -> StoreToolProcess {
        gate.open(tag: tag)
        if let kind { gate.arm(kind: kind) }
        let child = try StoreToolProcess(executable: tool, arguments: arguments)
        gate.register(pid: child.pid)
        return child
    }

    // MARK: In-process sessions

    /// A new session on the store directory, talking to the provider directly: a relaunched app.
    func makeSession(presenter: any HandoffPresenter = NoSignInPresenter()) -> Session {
        let store = FileCredentialStore(directory: storeURL)
        let deviceKeys = DeviceKeyManager(
            endpoint: configuration.provider.deviceKeyExchangeEndpoint!, platform: configuration.devicePlatform, transport: provider,
            store: store, now: { Date() })
        return Session(
            configuration: configuration, transport: provider, store: store, presenter: presenter, deviceKeys: .custom(deviceKeys),
            clock: ContinuousClock(), wallClock: { Date() }, random: SeededRandomNumberGenerator(seed: 5))
    }

    /// Signs in as ``subject`` in this process, storing the session in the directory.
    func signIn() async throws {
        let presenter = ScriptedPresenter(provider: provider, behaviours: [.approve(subject: Self.subject)])
        try await makeSession(presenter: presenter).signIn()
    }

    /// The first stage the session reaches (or is in) that no background work will leave.
    /// The stage `events` settle in (`signedOut` or `active`), and the status of a deletion the
    /// provider refused on the way.
    private static func settle(_ events: AsyncStream<SessionEvent>) async -> (SessionStage?, refusal: Int?) {
        var refusal: Int?
        for await event in events {
            guard case .transition(let transition) = event, transition.reason != .current else { continue }
            if case .accountDeletionRefused(let status) = transition.reason.kind { refusal = status }
            if transition.to == .signedOut || transition.to == .active { return (transition.to, refusal) }
        }
        return (nil, refusal)
    }

    /// How many chains the provider revoked because a retired refresh token came back.
    var reuseRevocations: Int {
        provider.revokedChains.count { $0.reason == .refreshTokenReuse }
    }

    /// A fresh checker after a child died in `phase`: the store must be readable and hold what
    /// that phase allows, and whatever it holds must recover — a session restores and refreshes,
    /// a journal completes — without a chain revoked for reuse.
    func check(after phase: ChildPhase) async -> Outcome {
        let store = FileCredentialStore(directory: storeURL)
        let record: CredentialRecord
        do {
            record = try await store.load()
            _ = try await store.loadDevice()
        } catch {
            return .lost("the store is unreadable: \(error)")
        }
        guard phase.allows(record) else { return .lost("a child \(phase) left \(record.shape)") }
        let reuseBefore = reuseRevocations
        let session = makeSession()
        let recovery: Recovery
        if let operation = record.pendingOperation {
            // A launch never waits: restore() answers with the resumed stage at once, and the
            // operation's end arrives as transitions, watched from before the restore.
            let events = session.events()
            let resumed: SessionStage = operation == .signOut ? .revoking : .disconnecting
            do {
                let stage = try await session.restore()
                guard stage == resumed else { return .lost("the journaled \(operation) restored into \(stage)") }
            } catch {
                return .lost("the journaled \(operation) could not be resumed: \(error)")
            }
            let (settled, refusal) = await Self.settle(events)
            if let refusal {
                // Refused on resume: only after the provider had disconnected (its refresh token is
                // gone), so the session restores what it kept, meets the revoked refresh token and
                // signs out.
                guard refusal == 401, operation == .deleteAccount,
                    record.session.map({ !provider.isRefreshTokenActive($0.refreshToken) }) == true
                else { return .lost("the journaled \(operation) was refused (\(refusal))") }
                guard settled == .signedOut, let after = try? await store.load(), after.session == nil, after.pendingOperation == nil
                else { return .lost("a session the provider disconnected stayed") }
                return .deletionRefusedAfterDisconnect
            }
            guard settled == .signedOut else { return .lost("the journaled \(operation) ended \(settled.map { "\($0)" } ?? "nowhere")") }
            guard let after = try? await store.load(), after.session == nil, after.pendingOperation == nil else {
                return .lost("the journaled \(operation) left credentials or its journal behind")
            }
            if let stored = record.session, provider.isRefreshTokenActive(stored.refreshToken) {
                return .lost("the journaled \(operation) wiped a token the provider still accepts")
            }
            recovery = .pendingCompleted(operation)
        } else if let stored = record.session {
            let windowHit = !provider.isRefreshTokenActive(stored.pendingRefreshToken ?? stored.refreshToken)
            let place = windowHit ? "inside the rotation window" : "outside the rotation window"
            do {
                let stage = try await session.restore()
                guard stage == .active else { return .lost("restore \(place) ended \(stage)") }
                try await session.refresh()
            } catch {
                return .lost("restore \(place) failed: \(error)")
            }
            recovery = .active(windowHit: windowHit)
        } else {
            recovery = .signedOut
        }
        guard reuseRevocations == reuseBefore else { return .lost("the provider revoked the chain for reuse") }
        return .recovered(recovery)
    }
}

/// The checker restores; it never signs in.
struct NoSignInPresenter: HandoffPresenter {
    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        throw .presentationFailed("the checker does not sign in")
    }
}
