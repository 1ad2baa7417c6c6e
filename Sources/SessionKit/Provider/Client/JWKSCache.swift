import Foundation
import SessionKitCore
import SessionKitJOSE

/// The provider's signing keys, cached for a time-to-live, fetched single-flight.
///
/// Concurrent callers share one fetch (``SingleFlight``): it runs as a child of the session's
/// ``TaskOwner``, so one caller's cancellation (a sign-out cancelling a refresh) leaves the others
/// their answer, and the fetch stops only when its last caller leaves.
///
/// An id_token naming an unknown `kid` triggers one refetch, unless a refetch triggered by an
/// unknown `kid` happened within `minimumRefetchInterval`: a provider that rotates its key right
/// after a sign-in's fetch is followed at once, and a flood of tokens with random `kid`s still
/// costs at most one fetch per interval.
final class JWKSCache: Sendable {
    private struct State {
        var cached: (keys: JWKS, fetchedAt: Date)?
        var lastUnknownKeyRefetch: Date?
    }

    private let client: ProviderClient
    private let timeToLive: TimeInterval
    private let minimumRefetchInterval: TimeInterval
    private let state = Locked(State())
    private let flight: SingleFlight<JWKS, ProviderError>

    init(client: ProviderClient, timeToLive: TimeInterval = 3600, minimumRefetchInterval: TimeInterval = 60, owner: TaskOwner = TaskOwner())
    {
        self.client = client
        self.timeToLive = timeToLive
        self.minimumRefetchInterval = minimumRefetchInterval
        self.flight = SingleFlight(owner: owner)
    }

    /// How many fetches were started.
    var fetchCount: Int { flight.flightsStarted }

    /// How many callers wait for the fetch in flight.
    var waitingCallerCount: Int { flight.waitingCallerCount }

    /// Notified whenever the callers waiting for a fetch change, for tests that wait on them.
    var changes: SessionChangeFeed { flight.changes }

    /// The cached keys while fresh, else a fetch. Returns whether the keys came from the cache.
    func keys() async throws(ProviderError) -> (keys: JWKS, fromCache: Bool) {
        if let keys = freshCachedKeys() { return (keys, true) }
        return (try await fetch(), false)
    }

    /// The cached keys while fresh, without fetching; `nil` when only a fetch could answer.
    func freshCachedKeys() -> JWKS? {
        let now = client.now()
        return state.withLock { state in
            guard let cached = state.cached, now.timeIntervalSince(cached.fetchedAt) < timeToLive else { return nil }
            return cached.keys
        }
    }

    /// Fetches again after an unknown `kid`, unless such a refetch happened within the minimum
    /// interval; returns `nil` when no refetch was allowed.
    func refetch() async throws(ProviderError) -> JWKS? {
        let now = client.now()
        let allowed: Bool = state.withLock { state in
            if let last = state.lastUnknownKeyRefetch, now.timeIntervalSince(last) < minimumRefetchInterval { return false }
            state.lastUnknownKeyRefetch = now
            return true
        }
        guard allowed else { return nil }
        return try await fetch()
    }

    private func fetch() async throws(ProviderError) -> JWKS {
        try await flight.run(cancelled: .transport(.cancelled)) { [self] () async -> Result<JWKS, ProviderError> in
            do throws(ProviderError) {
                let keys = try await client.fetchKeys()
                let now = client.now()
                state.withLock { $0.cached = (keys, now) }
                return .success(keys)
            } catch {
                return .failure(error)
            }
        }.get()
    }
}
