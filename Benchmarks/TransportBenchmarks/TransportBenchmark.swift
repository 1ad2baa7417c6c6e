import Foundation
import SessionKit
import SessionKitTesting

/// A token refresh against the local provider through each layer of the library and through a
/// bare `URLSession`, interleaved request by request.
///
/// Each path keeps its own refresh-token chain (DOT rotates tokens and revokes a chain whose
/// rotated-out token is replayed) and its own `URLSession`, so no path waits for or disturbs
/// another. Each round sends one refresh on every path; the order rotates from round to round,
/// so every path takes every position equally often and a burst of outside load hits them alike.
struct TransportBenchmark {
    /// One way of sending the refresh.
    enum Path: String, CaseIterable, Sendable {
        /// `URLSession.data(for:)` with an ephemeral configuration: the baseline.
        case bare = "bare_urlsession"
        /// `ProviderClient.refresh(_:)` over `URLSessionTransport`: form encoding, the transport's
        /// deadline race, strict response decoding.
        case providerClient = "provider_client"
        /// `Session.refresh()` with a `FileCredentialStore`: everything above plus the state
        /// machine, the store lease, the rotated token written durably before verification, the
        /// id_token verified (RS256 and claims), the verified session written durably.
        case session = "session"
        /// The same with the in-memory store, to separate the storage cost from the rest.
        case sessionInMemory = "session_in_memory_store"

        var label: String {
            switch self {
            case .bare: "bare URLSession POST"
            case .providerClient: "ProviderClient.refresh"
            case .session: "Session.refresh, file store"
            case .sessionInMemory: "Session.refresh, in-memory store"
            }
        }
    }

    var warmUpRounds = 10
    var rounds = 100
    /// The paths to run; the bare baseline is always among them.
    var paths = Path.allCases

    struct Result: Sendable {
        /// Milliseconds per request, measured rounds only.
        var milliseconds: [Path: Samples]
        /// Library paths: milliseconds per request spent in each timed phase, and in none of them
        /// (`nil` key: state machine, verification, encoding, task and actor hops).
        var phases: [Path: [PhaseClock.Phase?: Samples]]
        /// Library paths: how many times each phase ran per request (the same in every round).
        var phaseCounts: [Path: [PhaseClock.Phase: Int]]
        /// Library paths: milliseconds per request outside the HTTP exchange. Unlike the ratio it
        /// does not move with the provider's response time, which dominates a loaded machine's noise.
        var outsideHTTP: [Path: Samples]
        /// Per round: this path's time over the bare request's time in the same round.
        var pairedRatios: [Path: Samples]
        /// From the first warm-up request to the last measured one.
        var wallTime: Duration
    }

    @concurrent
    func run(_ provider: LocalProvider, progress: @Sendable (String) -> Void) async throws -> Result {
        let clock = ContinuousClock()
        let configuration = SessionConfiguration(
            provider: try await ProviderConfiguration.discover(
                issuer: provider.issuer, clientID: provider.clientID, redirectURI: provider.redirectURI,
                scopes: ["openid", "profile", "email"], revocationEndpoint: provider.revocationEndpoint,
                transport: URLSessionTransport(clock: clock, deadline: .seconds(20))))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-transport-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let user = "bench-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

        progress("signing in four sessions as \(user)-*")
        // The library paths run through timing wrappers, which cost a few clock reads per call.
        let timers = Dictionary(uniqueKeysWithValues: Path.allCases.map { ($0, PhaseClock()) })
        let fileStore = FileCredentialStore(directory: directory)
        let session = try await Self.signedIn(
            provider, configuration, store: TimedStore(base: fileStore, phases: timers[.session]!), user: user + "-session",
            phases: timers[.session]!)
        let memoryStore = InMemoryCredentialStore()
        let sessionInMemory = try await Self.signedIn(
            provider, configuration, store: TimedStore(base: memoryStore, phases: timers[.sessionInMemory]!), user: user + "-memory",
            phases: timers[.sessionInMemory]!)
        var clientToken = try await Self.refreshTokenOfNewSignIn(provider, configuration, user: user + "-client")
        let client = ProviderClient(
            configuration: configuration.provider,
            transport: TimedTransport(base: URLSessionTransport(clock: clock, deadline: .seconds(20)), phases: timers[.providerClient]!),
            now: { Date() })
        var bare = BareRefresher(
            tokenEndpoint: configuration.provider.tokenEndpoint, clientID: provider.clientID,
            refreshToken: try await Self.refreshTokenOfNewSignIn(provider, configuration, user: user + "-bare"))
        defer { bare.invalidate() }

        let paths = self.paths.contains(.bare) ? self.paths : [.bare] + self.paths
        var milliseconds: [Path: Samples] = [:]
        var pairedRatios: [Path: Samples] = [:]
        var phases: [Path: [PhaseClock.Phase?: Samples]] = [:]
        var phaseCounts: [Path: [PhaseClock.Phase: Int]] = [:]
        var outsideHTTP: [Path: Samples] = [:]
        progress("\(warmUpRounds) warm-up rounds, then \(rounds) measured rounds of \(paths.count) refreshes each")
        let started = clock.now
        for round in 0..<(warmUpRounds + rounds) {
            var times: [Path: Double] = [:]
            for index in paths.indices {
                let path = paths[(round + index) % paths.count]
                _ = timers[path]!.take()
                let start = clock.now
                switch path {
                case .bare:
                    try await bare.refresh()
                case .providerClient:
                    clientToken = try await client.refresh(clientToken).refreshToken ?? clientToken
                case .session:
                    _ = try await session.refresh()
                case .sessionInMemory:
                    _ = try await sessionInMemory.refresh()
                }
                let total = clock.now - start
                times[path] = total.milliseconds
                guard round >= warmUpRounds, path != .bare else { continue }
                let tally = timers[path]!.take()
                let (spent, counts) = (tally.totals, tally.counts)
                for phase in PhaseClock.Phase.allCases where counts[phase] != nil {
                    phases[path, default: [:]][phase, default: Samples()].add(spent[phase]!.milliseconds)
                }
                phases[path, default: [:]][nil, default: Samples()].add((total - spent.values.reduce(.zero, +)).milliseconds)
                phaseCounts[path] = counts
                outsideHTTP[path, default: Samples()].add((total - (spent[.http] ?? .zero)).milliseconds)
            }
            guard round >= warmUpRounds else { continue }
            let bareTime = times[.bare]!
            for (path, time) in times {
                milliseconds[path, default: Samples()].add(time)
                pairedRatios[path, default: Samples()].add(time / bareTime)
            }
            if (round - warmUpRounds + 1) % 25 == 0 { progress("round \(round - warmUpRounds + 1)/\(rounds)") }
        }
        let wallTime = clock.now - started

        // Every Session.refresh() must have reached the provider and rotated: one rotation per round.
        for (path, rotations) in [
            (Path.session, try await fileStore.load().session?.rotation), (.sessionInMemory, memoryStore.record.session?.rotation),
        ]
        where paths.contains(path) {
            let expected = UInt64(warmUpRounds + rounds)
            guard rotations == expected else {
                throw BenchmarkFailure("\(path.label): expected \(expected) rotations, found \(rotations ?? 0)")
            }
        }

        progress("signing out and revoking the benchmark's tokens")
        try? await session.signOut()
        try? await sessionInMemory.signOut()
        _ = try? await client.revoke(clientToken)
        _ = try? await client.revoke(bare.currentRefreshToken)
        return Result(
            milliseconds: milliseconds, phases: phases, phaseCounts: phaseCounts, outsideHTTP: outsideHTTP, pairedRatios: pairedRatios,
            wallTime: wallTime)
    }

    /// A session signed in through the provider's header-authenticated authorization step.
    private static func signedIn(
        _ provider: LocalProvider, _ configuration: SessionConfiguration, store: any CredentialStore, user: String,
        phases: PhaseClock? = nil
    ) async throws -> Session {
        let transport = URLSessionTransport(clock: ContinuousClock(), deadline: .seconds(20))
        let sessionTransport: any HTTPTransport = phases.map { TimedTransport(base: transport, phases: $0) } ?? transport
        let session = Session(
            configuration: configuration, transport: sessionTransport, store: store,
            presenter: HeaderSignInPresenter(header: provider.userHeader, user: user, transport: transport),
            clock: ContinuousClock())
        try await session.signIn()
        return session
    }

    /// The start of a fresh refresh-token chain: a sign-in whose session is then set aside unused.
    private static func refreshTokenOfNewSignIn(
        _ provider: LocalProvider, _ configuration: SessionConfiguration, user: String
    ) async throws -> Secret {
        let store = InMemoryCredentialStore()
        _ = try await signedIn(provider, configuration, store: store, user: user)
        guard let token = store.record.session?.refreshToken else { throw BenchmarkFailure("the sign-in stored no refresh token") }
        return token
    }
}
