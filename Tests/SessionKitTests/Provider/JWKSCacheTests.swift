import Foundation
import SessionKitJOSE
import Testing

@testable import SessionKit

@Suite struct JWKSCacheTests {
    private let keys: ProviderTestKeys
    private let wallClock = SettableWallClock()
    private let transport: RecordingTransport

    init() throws {
        keys = try ProviderTestKeys()
        transport = RecordingTransport(always: HTTPResponse(status: 200, body: ProviderTestKeys.jwksBody([("k1", keys.signing)])))
    }

    private func cache(timeToLive: TimeInterval = 3600, minimumRefetchInterval: TimeInterval = 60) throws -> JWKSCache {
        let wallClock = wallClock
        let client = ProviderClient(
            configuration: try ProviderTestKeys.configuration(), transport: transport, now: { wallClock.now() })
        return JWKSCache(client: client, timeToLive: timeToLive, minimumRefetchInterval: minimumRefetchInterval)
    }

    private func serve(_ published: [(kid: String, key: RSAPrivateKey)]) {
        let body = ProviderTestKeys.jwksBody(published)
        transport.respond { _ in .success(HTTPResponse(status: 200, body: body)) }
    }

    // MARK: Time to live

    @Test func keysAreFetchedOnceAndServedFromTheCacheWithinTheTimeToLive() async throws {
        let cache = try cache()
        let first = try await cache.keys()
        #expect(!first.fromCache)
        #expect(first.keys.verificationKey(forKeyID: "k1") != nil)
        wallClock.advance(by: 3599)
        let second = try await cache.keys()
        #expect(second.fromCache)
        #expect(second.keys.verificationKey(forKeyID: "k1") != nil)
        #expect(transport.requests.count == 1)
    }

    @Test func keysAreFetchedAgainOnceTheTimeToLiveHasPassed() async throws {
        let cache = try cache()
        _ = try await cache.keys()
        serve([("k2", keys.rotated)])
        wallClock.advance(by: 3600)
        let refreshed = try await cache.keys()
        #expect(!refreshed.fromCache)
        #expect(refreshed.keys.verificationKey(forKeyID: "k2") != nil)
        #expect(refreshed.keys.verificationKey(forKeyID: "k1") == nil)
        #expect(transport.requests.count == 2)
        // The new set starts its own time to live.
        wallClock.advance(by: 1800)
        #expect(try await cache.keys().fromCache)
        #expect(transport.requests.count == 2)
    }

    @Test func aShorterTimeToLiveIsHonoured() async throws {
        let cache = try cache(timeToLive: 10)
        _ = try await cache.keys()
        wallClock.advance(by: 9.9)
        #expect(try await cache.keys().fromCache)
        wallClock.advance(by: 0.1)
        #expect(try await !cache.keys().fromCache)
        #expect(transport.requests.count == 2)
    }

    // MARK: Single flight

    @Test(.timeLimit(.minutes(1)))
    func concurrentCallersShareOneFetch() async throws {
        let cache = try cache()
        transport.hold()
        let callers = 50
        let results = Collector<(kids: Int, fromCache: Bool)>()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    let result = try await cache.keys()
                    results.append((result.keys.verificationKeyCount, result.fromCache))
                }
            }
            // Each caller reads the wall clock once on the cache's actor, just before it starts the
            // fetch or joins the one in flight; the held fetch cannot finish until it gets back on
            // that actor, so after 50 reads every caller has joined.
            await wallClock.waitForReads(count: callers)
            await transport.waitForRequests(count: 1)
            transport.release()
            try await group.waitForAll()
        }
        #expect(transport.requests.count == 1)
        let all = results.values
        #expect(all.count == callers)
        #expect(all.allSatisfy { $0.kids == 1 && !$0.fromCache })
    }

    @Test(.timeLimit(.minutes(1)))
    func aFailedSharedFetchFailsEveryCallerAndIsNotCached() async throws {
        let cache = try cache()
        transport.respond { _ in .success(HTTPResponse(status: 503, headers: ["Retry-After": "5"])) }
        transport.hold()
        let callers = 10
        let failures = Collector<ProviderError>()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    do throws(ProviderError) {
                        _ = try await cache.keys()
                    } catch {
                        failures.append(error)
                    }
                }
            }
            await wallClock.waitForReads(count: callers)
            await transport.waitForRequests(count: 1)
            transport.release()
        }
        #expect(transport.requests.count == 1)
        let errors = failures.values
        #expect(errors.count == callers)
        #expect(errors.allSatisfy { $0.status == 503 && $0.retryAfter == .seconds(5) })

        // The failure is not remembered: the next call fetches again and succeeds.
        serve([("k1", keys.signing)])
        let next = try await cache.keys()
        #expect(!next.fromCache)
        #expect(transport.requests.count == 2)
    }

    // MARK: Errors

    @Test func fetchErrorsPropagateAndAreNotCached() async throws {
        let cache = try cache()
        transport.respond { _ in .failure(.timedOut) }
        await #expect(throws: ProviderError.transport(.timedOut)) { try await cache.keys() }
        transport.respond { _ in .success(.json(200, "{\"keys\": 1}")) }
        await #expect(throws: ProviderError.invalidResponse("JWKS does not decode")) { try await cache.keys() }
        transport.respond { _ in .success(.json(500, "{}")) }
        await #expect(throws: ProviderError.self) { try await cache.keys() }
        serve([("k1", keys.signing)])
        #expect(try await !cache.keys().fromCache)
        #expect(transport.requests.count == 4)
    }

    @Test func aFailedFetchAfterTheTimeToLiveDoesNotServeTheStaleSet() async throws {
        let cache = try cache()
        _ = try await cache.keys()
        wallClock.advance(by: 3600)
        transport.respond { _ in .failure(.connectionFailed("refused")) }
        await #expect(throws: ProviderError.transport(.connectionFailed("refused"))) { try await cache.keys() }
        #expect(transport.requests.count == 2)
    }

    // MARK: Forced refetch

    @Test("an unknown kid right after a fetch refetches: a sign-in's own fetch does not count")
    func refetchRightAfterAFetch() async throws {
        let cache = try cache()
        _ = try await cache.keys()
        // The provider rotates its key 3 s after the sign-in fetched the set.
        serve([("k1", keys.signing), ("k2", keys.rotated)])
        wallClock.advance(by: 3)
        let refetched = try #require(try await cache.refetch())
        #expect(refetched.verificationKey(forKeyID: "k2") != nil)
        #expect(transport.requests.count == 2)
        #expect(try await cache.keys().keys.verificationKey(forKeyID: "k2") != nil)
    }

    @Test("refetches for unknown kids are limited to one per interval, however many tokens ask")
    func refetchIsRateLimited() async throws {
        let cache = try cache()
        _ = try await cache.keys()
        serve([("k1", keys.signing), ("k2", keys.rotated)])
        #expect(try await cache.refetch() != nil)
        #expect(transport.requests.count == 2)
        // A flood of tokens naming random kids within the interval: no more fetches.
        for _ in 0..<3 {
            wallClock.advance(by: 19)
            #expect(try await cache.refetch() == nil)
        }
        #expect(transport.requests.count == 2)
        wallClock.advance(by: 60)
        #expect(try await cache.refetch() != nil)
        #expect(transport.requests.count == 3)
        #expect(try await cache.refetch() == nil)
        #expect(transport.requests.count == 3)
    }

    @Test func refetchWithNothingCachedFetches() async throws {
        let cache = try cache()
        let refetched = try #require(try await cache.refetch())
        #expect(refetched.verificationKeyCount == 1)
        #expect(transport.requests.count == 1)
        #expect(try await cache.keys().fromCache)
    }

    @Test func aFailedRefetchPropagatesAndKeepsTheCachedSet() async throws {
        let cache = try cache()
        _ = try await cache.keys()
        wallClock.advance(by: 120)
        transport.respond { _ in .success(HTTPResponse(status: 502)) }
        await #expect(throws: ProviderError.self) { try await cache.refetch() }
        let served = try await cache.keys()
        #expect(served.fromCache)
        #expect(served.keys.verificationKey(forKeyID: "k1") != nil)
        #expect(transport.requests.count == 2)
    }
}
