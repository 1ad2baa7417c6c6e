import Foundation
import SessionKitJOSE

/// The provider's signing keys, cached for a time-to-live, fetched single-flight.
///
/// Concurrent callers share one fetch. A forced refetch (an id_token named an unknown `kid`) is
/// rate-limited, so a stream of forged tokens cannot make the session hammer the provider.
actor JWKSCache {
    private let client: ProviderClient
    private let timeToLive: TimeInterval
    private let minimumRefetchInterval: TimeInterval
    private var cached: (keys: JWKS, fetchedAt: Date)?
    private var inFlight: [CheckedContinuation<Result<JWKS, ProviderError>, Never>]?

    init(client: ProviderClient, timeToLive: TimeInterval = 3600, minimumRefetchInterval: TimeInterval = 60) {
        self.client = client
        self.timeToLive = timeToLive
        self.minimumRefetchInterval = minimumRefetchInterval
    }

    /// The cached keys while fresh, else a fetch. Returns whether the keys came from the cache.
    func keys() async throws(ProviderError) -> (keys: JWKS, fromCache: Bool) {
        let now = client.now()
        if let cached, now.timeIntervalSince(cached.fetchedAt) < timeToLive {
            return (cached.keys, true)
        }
        return (try await fetch(), false)
    }

    /// The cached keys while fresh, without fetching; `nil` when only a fetch could answer.
    func freshCachedKeys() -> JWKS? {
        guard let cached, client.now().timeIntervalSince(cached.fetchedAt) < timeToLive else { return nil }
        return cached.keys
    }

    /// Fetches again after an unknown `kid`, unless the set was fetched within the rate limit;
    /// returns `nil` when no refetch was allowed.
    func refetch() async throws(ProviderError) -> JWKS? {
        if let cached, client.now().timeIntervalSince(cached.fetchedAt) < minimumRefetchInterval {
            return nil
        }
        return try await fetch()
    }

    private func fetch() async throws(ProviderError) -> JWKS {
        if inFlight != nil {
            let result = await withCheckedContinuation { continuation in
                inFlight?.append(continuation)
            }
            return try result.get()
        }
        inFlight = []
        let result: Result<JWKS, ProviderError>
        do {
            result = .success(try await client.fetchKeys())
        } catch {
            result = .failure(error)
        }
        if case .success(let keys) = result { cached = (keys, client.now()) }
        let waiting = inFlight ?? []
        inFlight = nil
        for continuation in waiting { continuation.resume(returning: result) }
        return try result.get()
    }
}
