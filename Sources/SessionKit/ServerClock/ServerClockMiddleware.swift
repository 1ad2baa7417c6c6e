import Foundation

/// Reads the provider's `Date` from every answer of the token endpoint into the session's
/// ``ServerClock``; it runs inside every other middleware, so it sees the answers a DPoP
/// middleware turns into errors too (a proof refused for its `iat` carries the provider's time).
struct ServerClockRecorder: RequestMiddleware {
    let serverClock: ServerClock
    let now: @Sendable () -> Date

    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard endpoint == .token else { return try await next(request) }
        let sentAt = now()
        let response = try await next(request)
        serverClock.record(dateHeader: response.header("Date"), sentAt: sentAt, receivedAt: now())
        return response
    }
}

/// Sends a request once more when the provider refused its DPoP proof (`invalid_dpop_proof`) and
/// the refusal moved the session's estimate of the provider's clock: the proof's `iat` was judged
/// on a clock the session has just learnt was off, and the new proof carries the corrected time.
///
/// Once per request, never in a loop, and only when the offset changed by at least a second: a
/// refusal for any other reason is the provider's answer as it came. The retry presents the same
/// grant with a fresh proof, as the session's nonce step does after a `use_dpop_nonce`.
struct ServerClockRetry: RequestMiddleware {
    let serverClock: ServerClock

    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard endpoint == .token else { return try await next(request) }
        let offsetUsed = serverClock.offset
        do {
            return try await next(request)
        } catch {
            guard error.oauthError == "invalid_dpop_proof", abs(serverClock.offset - offsetUsed) >= 1 else { throw error }
            return try await next(request)
        }
    }
}

extension DPoPMiddleware {
    /// This middleware with its proofs' `iat` on the provider's clock as `serverClock` estimates it.
    func readingServerTime(from serverClock: ServerClock) -> DPoPMiddleware {
        let deviceNow = now
        return DPoPMiddleware(
            keys: keys, nonces: nonces, requirement: requirement, now: { serverClock.serverTime(at: deviceNow()) })
    }
}
