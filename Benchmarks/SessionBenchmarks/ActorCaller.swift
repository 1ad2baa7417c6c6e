import SessionKit

/// App code that asks for tokens from its own actor (an API client, a view model): every call
/// switches from this actor to the callee's executor and back, because the result is used in this
/// actor's own state.
actor ActorCaller {
    private var checksum = 0.0

    /// Nanoseconds per `validAccessToken()`.
    func time(_ session: Session, iterations: Int) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations {
            checksum += try await session.validAccessToken().expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(checksum)
        return elapsed.nanoseconds / Double(iterations)
    }

    /// Nanoseconds per `currentToken()`.
    func time(_ source: BaselineTokenSource, iterations: Int) async -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<iterations {
            checksum += await source.currentToken().expiresAt.timeIntervalSinceReferenceDate
        }
        let elapsed = start.duration(to: clock.now)
        Sink.consume(checksum)
        return elapsed.nanoseconds / Double(iterations)
    }
}
