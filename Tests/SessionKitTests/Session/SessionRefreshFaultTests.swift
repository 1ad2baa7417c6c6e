import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Every fault the simulated provider can script on the token endpoint while a refresh is due.
@Suite("Session refresh faults")
struct SessionRefreshFaultTests {
    typealias Step = SimulatedSessionEnvironment.Step

    /// Signs in, lets 59 minutes pass (the token is due within the 60 s lead time), scripts
    /// `fault` on the token endpoint and asks for a token in a task.
    private func dueRefresh(
        _ h: SimulatedSessionEnvironment, _ fault: SimulatedProviderFault, times: Int = 1
    ) async throws -> (StoredSession, Task<SessionCallResult<AccessToken>, Never>) {
        await h.startRecording()
        let signedIn = try await h.signIn()
        // At its expiry: a caller cannot be handed the current token, so it waits for the refresh.
        h.clock.advance(by: .seconds(Self.dueAt))
        h.provider.script(fault, on: .token, times: times)
        let session = h.session
        return (signedIn, Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } })
    }

    private static let dueAt: Double = 3600
    private static let due = Step.move(.active, .refreshing, .tokenDue(inSeconds: 0, callers: 1))

    /// Checks the session ended active on a new, verified, stored token that the caller received.
    private func expectRefreshed(_ h: SimulatedSessionEnvironment, _ result: SessionCallResult<AccessToken>, from signedIn: StoredSession)
        async throws
    {
        let token = try #require(result.value, "the caller got \(result)")
        let stored = try #require(h.store.record.session)
        #expect(token.secret == stored.accessToken)
        #expect(token.secret != signedIn.accessToken)
        #expect(stored.pendingRefreshToken == nil)
        #expect(h.provider.isRefreshTokenActive(stored.refreshToken))
        #expect(h.session.stage == .active)
    }

    // MARK: Transient: retried with backoff while the callers wait

    @Test(
        "a transient failure is retried after a jittered backoff and the caller gets the refreshed token",
        arguments: [
            (SimulatedProviderFault.timeout, "timed out"),
            (.connectionFailure, "connection failed"),
            (.serverError(status: 503), "503 server_error"),
            (.serverError(status: 500), "500 server_error"),
            (.malformedJSON, "invalid response: token response does not decode"),
        ])
    func transientFailureRetried(fault: SimulatedProviderFault, because: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, fault)
        if fault == .timeout {
            #expect(await h.advanceToNextSleeper() == .seconds(30))
        }
        await h.advanceToNextSleeper()
        let result = await caller.value

        try await expectRefreshed(h, result, from: signedIn)
        let retry = try #require(h.retries.first)
        #expect((0...1).contains(retry.afterSeconds))
        #expect(TransitionReason.phrase(retry.because) == because)
        #expect(
            h.steps == Step.signIn() + [
                Self.due,
                .move(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.refreshing, .active, .refreshed(callers: 1)),
            ])
        let waited = fault == .timeout ? 30.0 : 0
        #expect(abs(h.transitionTimes.last! - (Self.dueAt + waited + retry.afterSeconds)) < 1e-6)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 2)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
    }

    @Test(
        "Retry-After is honoured over the 1 s backoff cap",
        arguments: [
            (SimulatedProviderFault.rateLimited(retryAfterSeconds: 20), 20.0, "429 rate_limited"),
            (.serverError(status: 503, retryAfterSeconds: 7), 7.0, "503 server_error"),
        ])
    func retryAfterHonoured(fault: SimulatedProviderFault, delay: Double, because: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, fault)
        #expect(await h.advanceToNextSleeper() == .seconds(delay))
        let result = await caller.value

        try await expectRefreshed(h, result, from: signedIn)
        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == because)
        #expect(
            h.steps == Step.signIn() + [
                Self.due,
                .move(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: delay, because: retry.because)),
                .move(.refreshing, .active, .refreshed(callers: 1)),
            ])
        #expect(h.transitionTimes.suffix(2) == [Self.dueAt, Self.dueAt + delay])
        #expect(
            h.provider.requestLog.filter { $0.grantType == "refresh_token" }.map(\.receivedAt) == [
                h.epoch + Self.dueAt, h.epoch + Self.dueAt + delay,
            ])
    }

    @Test("a slow answer keeps the callers waiting in simulated time, then serves them")
    func slowAnswer() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, .slow(.seconds(5)))
        await h.waitUntil("the caller waits") { h.session.waitingCallerCount == 1 }
        #expect(await h.advanceToNextSleeper() == .seconds(5))
        let result = await caller.value

        try await expectRefreshed(h, result, from: signedIn)
        #expect(h.steps == Step.signIn() + Step.refresh(dueIn: 0))
        #expect(h.transitionTimes.suffix(2) == [Self.dueAt, Self.dueAt + 5])
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test("exhausting the refresh retry policy fails the callers, keeps the session, and is not sticky")
    func retriesExhausted() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, .serverError(status: 503), times: 3)
        await h.advanceToNextSleeper()
        await h.advanceToNextSleeper()
        let result = await caller.value

        guard case .provider(let error)? = result.error?.kind else {
            Issue.record("expected a provider error, got \(result)")
            return
        }
        #expect(error.status == 503)
        #expect(error.isTransient)
        let retries = h.retries
        #expect(retries.count == 2)
        #expect((0...1).contains(retries[0].afterSeconds))
        #expect((0...2).contains(retries[1].afterSeconds))
        #expect(
            h.steps == Step.signIn() + [
                Self.due,
                .move(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: retries[0].afterSeconds, because: retries[0].because)),
                .move(.refreshing, .refreshing, .retrying(attempt: 2, afterSeconds: retries[1].afterSeconds, because: retries[1].because)),
                .move(.refreshing, .active, .refreshFailedTransiently(.provider(error))),
            ])
        #expect(retries.map { TransitionReason.phrase($0.because) } == ["503 server_error", "503 server_error"])
        #expect(h.session.stage == .active)
        #expect(h.store.record.session == signedIn)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 3)

        // Not sticky: the next call makes a new request and succeeds.
        let remaining = max(0, Int((3600 - h.elapsed).rounded(.down)))
        let token = try await h.session.validAccessToken()
        #expect(h.provider.requestCount(grantType: "refresh_token") == 4)
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(
            h.steps.suffix(2) == [
                .move(.active, .refreshing, .tokenDue(inSeconds: remaining, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: 1)),
            ])
    }

    // MARK: Lost in transit

    @Test("a rotated token lost in transit: the retry replays the old token, the provider revokes the chain")
    func timeoutAfterProcessing() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, .timeoutAfterProcessing)
        #expect(await h.advanceToNextSleeper() == .seconds(30))
        await h.advanceToNextSleeper()
        let result = await caller.value

        #expect(result.error == .refreshTokenRejected)
        let retry = try #require(h.retries.first)
        #expect(
            h.steps == Step.signIn() + [
                Self.due,
                .move(
                    .refreshing, .refreshing,
                    .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: .provider(.transport(.timedOut)))),
                .move(.refreshing, .signedOut, .refreshRejected(h.refusedRefreshAnswer)),
            ])
        #expect(h.refusedRefreshAnswer?.status == 400 && h.refusedRefreshAnswer?.oauthError == "invalid_grant")
        // The provider processed the first refresh (the rotated token never arrived), then saw the
        // old token replayed and revoked the whole chain.
        #expect(h.provider.requestLog.filter { $0.grantType == "refresh_token" }.map(\.errorCode) == [nil, "invalid_grant"])
        #expect(h.provider.revokedChains.map(\.reason) == [.refreshTokenReuse])
        #expect(h.provider.activeGrantCount == 0)
        #expect(h.issued.refreshTokens == [signedIn.refreshToken])
        #expect(h.store.record.session == nil)
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
    }

    // MARK: Permanent

    @Test("invalid_grant ends the session: signed out with refreshRejected, store wiped")
    func invalidGrant() async throws {
        let h = try SimulatedSessionEnvironment()
        let (_, caller) = try await dueRefresh(h, .invalidGrant)
        let result = await caller.value

        #expect(result.error == .refreshTokenRejected)
        #expect(
            h.steps.map(\.description) == (Step.signIn() + [Self.due]).map(\.description) + [
                "refreshing→signedOut (refresh rejected: 400 invalid_grant)"
            ])
        #expect(h.store.record.session == nil)
        #expect(h.store.record.pendingOperation == nil)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.session.identity == nil)
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test(
        "any 400 or 401 to a refresh ends the session once, whatever its body (RFC 6749 §5.2 bent or not)",
        arguments: [
            (SimulatedProviderFault.rawAnswer(status: 400, body: ""), "400, empty body"),
            (.rawAnswer(status: 400, body: "<html>Bad Request</html>"), "400, no error code"),
            (.rawAnswer(status: 400, body: #"{"error":"something_new"}"#), "400 something_new"),
            (.rawAnswer(status: 400, body: #"{"error":"invalid_request"}"#), "400 invalid_request"),
            (.unauthorized, "401 invalid_client"),
            (.rawAnswer(status: 401, body: ""), "401, empty body"),
        ])
    func clientErrorEndsTheSession(fault: SimulatedProviderFault, answer: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (_, caller) = try await dueRefresh(h, fault)
        let result = await caller.value

        #expect(result.error == .refreshTokenRejected)
        #expect(result.error?.requiresSignIn == true)
        // The reason names what the provider answered, not what it might have meant.
        #expect(h.steps.dropLast() == Step.signIn() + [Self.due])
        guard case .move(.refreshing, .signedOut, let reason)? = h.steps.last else {
            Issue.record("unexpected last step \(String(describing: h.steps.last))")
            return
        }
        #expect(reason.code == .refreshRejected)
        #expect(reason.description == "refresh rejected: \(answer)")
        #expect(reason.error?.httpStatus == Int(answer.prefix(3)))
        #expect(h.store.record.session == nil)
        // The dead token is presented once: no retry loop.
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test(
        "a refusal that is not the refresh token's fault fails the callers, keeps the session, and the next call retries",
        arguments: [
            (SimulatedProviderFault.forbidden, 403, "403 forbidden"),
            (.notFound, 404, "404 not_found"),
        ])
    func refusalKeepsSession(fault: SimulatedProviderFault, status: Int, reason: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, fault)
        let result = await caller.value

        guard case .provider(let error)? = result.error?.kind else {
            Issue.record("expected a provider error, got \(result)")
            return
        }
        #expect(error.status == status)
        #expect(h.steps == Step.signIn() + [Self.due, .move(.refreshing, .active, .refreshFailedTransiently(.provider(error)))])
        #expect(error.summary == reason)
        #expect(h.session.stage == .active)
        #expect(h.store.record.session == signedIn)
        #expect(h.provider.isRefreshTokenActive(signedIn.refreshToken))

        let token = try await h.session.validAccessToken()
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(token.secret != signedIn.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 2)
        #expect(h.steps.suffix(2) == Step.refresh(dueIn: 0)[...])
    }

    @Test(
        "a refreshed id_token failing any check ends the session with its code",
        arguments: [
            (SimulatedProviderFault.IDTokenTampering.issuer("https://evil.example"), "iss_mismatch"),
            (.expired, "expired"),
            (.keyID("sim-key-99"), "unknown_kid"),
        ])
    func refreshedIDTokenRejected(tampering: SimulatedProviderFault.IDTokenTampering, code: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, .tamperedIDToken(tampering))
        let result = await caller.value

        guard case .verificationFailed(let error)? = result.error?.kind else {
            Issue.record("expected verificationFailed, got \(result)")
            return
        }
        #expect(error.code == code)
        await h.waitUntil("both refresh tokens revoked") { h.deferredRevocations == 2 }
        #expect(
            h.steps == Step.signIn() + [
                Self.due,
                .move(.refreshing, .signedOut, .verificationFailed(error)),
                .event(.deferredRevocationCompleted),
                .event(.deferredRevocationCompleted),
            ])
        // An unknown kid is looked up once more before the token is rejected.
        #expect(h.provider.requestCount(for: .jwks) == 2)
        let rejected = try #require(h.issued.accessTokens.last)
        #expect(h.journal.savedRecords.allSatisfy { $0.session?.accessToken != rejected })
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.issued.refreshTokens.allSatisfy { !h.provider.isRefreshTokenActive($0) })
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(h.store.record.isEmpty)
    }

    @Test("a refreshed id_token carrying a nonce is accepted (OIDC Core §12.2: SHOULD NOT, not MUST NOT)")
    func refreshedNonceAccepted() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, caller) = try await dueRefresh(h, .tamperedIDToken(.nonce("unexpected")))
        try await expectRefreshed(h, await caller.value, from: signedIn)
        #expect(h.steps == Step.signIn() + Step.refresh(dueIn: 0))
    }
}
