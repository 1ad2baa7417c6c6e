import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Scripted faults on the code exchange, the revocation and disconnect endpoints, the device-key
/// exchange and the signing keys, each with the exact event sequence it produces.
@Suite("Session endpoint faults")
struct SessionEndpointFaultTests {
    typealias Step = SimulatedSessionEnvironment.Step

    // MARK: Code exchange

    /// Starts a sign-in the presenter approves, with `fault` on the token endpoint.
    private func signInTask(_ h: SimulatedSessionEnvironment, _ fault: SimulatedProviderFault) async -> Task<
        SessionCallResult<SessionIdentity>, Never
    > {
        await h.startRecording()
        h.provider.script(fault, on: .token)
        h.presenter.enqueue(.approve(subject: "alice"))
        let session = h.session
        return Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn() } }
    }

    @Test(
        "a failed code exchange ends the sign-in with the provider's error and stores nothing",
        arguments: [
            (SimulatedProviderFault.timeout, "timed out"),
            (.timeoutAfterProcessing, "timed out"),
            (.connectionFailure, "connection failed"),
            (.serverError(status: 503), "503 server_error"),
            (.rateLimited(retryAfterSeconds: 10), "429 rate_limited"),
            (.invalidGrant, "400 invalid_grant"),
            (.unauthorized, "401 invalid_client"),
            (.forbidden, "403 forbidden"),
            (.notFound, "404 not_found"),
            (.malformedJSON, "invalid response: token response does not decode"),
        ])
    func exchangeFails(fault: SimulatedProviderFault, summary: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await signInTask(h, fault)
        if fault == .timeout || fault == .timeoutAfterProcessing {
            // Only once verifying is the handoff timer gone, so the one sleeper is the request's.
            await h.waitUntil("verifying") { h.session.stage == .verifying }
            #expect(await h.advanceToNextSleeper() == .seconds(30))
        }
        let result = await signIn.value

        guard case .provider(let error)? = result.error?.kind else {
            Issue.record("expected a provider error, got \(result)")
            return
        }
        #expect(error.summary == summary)
        #expect(
            h.steps == [
                .move(.signedOut, .handoff, .signInRequested),
                .move(.handoff, .verifying, .callbackReceived),
                .move(.verifying, .signedOut, .exchangeFailed(.provider(error))),
            ])
        #expect(h.session.stage == .signedOut)
        #expect(h.store.record.isEmpty)
        #expect(h.journal.savedRecords.isEmpty)
        #expect(h.provider.requestCount(grantType: "authorization_code") == 1)
        // Only a request the provider processed left a grant behind, which the app never saw.
        #expect(h.provider.activeGrantCount == (fault == .timeoutAfterProcessing ? 1 : 0))
        #expect(h.issued.refreshTokens.isEmpty)

        // The person can sign in again at once.
        try await h.signIn()
        #expect(h.session.stage == .active)
    }

    @Test("a slow code exchange keeps the session verifying in simulated time, then signs in")
    func exchangeSlow() async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await signInTask(h, .slow(.seconds(3)))
        await h.waitUntil("verifying") { h.session.stage == .verifying }
        #expect(await h.advanceToNextSleeper() == .seconds(3))
        #expect(await signIn.value.value?.subject == "alice")
        #expect(h.steps == Step.signIn())
        #expect(h.transitionTimes == [0, 0, 3])
        #expect(h.store.record.session?.subject == "alice")
    }

    @Test(
        "a code exchange whose id_token fails a check is rejected, and its refresh token revoked",
        arguments: [
            (SimulatedProviderFault.IDTokenTampering.badSignature, "bad_signature"),
            (.audience("another-client"), "aud_mismatch"),
            (.issuer("https://evil.example"), "iss_mismatch"),
            (.nonce("replayed"), "nonce_mismatch"),
            (.expired, "expired"),
            (.keyID("sim-key-99"), "unknown_kid"),
        ])
    func exchangeVerificationFails(tampering: SimulatedProviderFault.IDTokenTampering, code: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let signIn = await signInTask(h, .tamperedIDToken(tampering))
        let result = await signIn.value

        guard case .verificationFailed(let error)? = result.error?.kind else {
            Issue.record("expected verificationFailed, got \(result)")
            return
        }
        #expect(error.code == code)
        await h.waitUntil("the rejected refresh token revoked") { h.deferredRevocations == 1 }
        #expect(
            h.steps == [
                .move(.signedOut, .handoff, .signInRequested),
                .move(.handoff, .verifying, .callbackReceived),
                .move(.verifying, .signedOut, .verificationFailed(error)),
                .event(.deferredRevocationCompleted),
            ])
        let rejected = try #require(h.issued.refreshTokens.first)
        #expect(h.journal.savedRecords.allSatisfy { $0.session == nil })
        #expect(!h.provider.isRefreshTokenActive(rejected))
        #expect(h.provider.activeGrantCount == 0)
        // With nothing cached there is no second key fetch for an unknown kid.
        #expect(h.provider.requestCount(for: .jwks) == 1)
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(h.store.record.isEmpty)
    }

    // MARK: Revocation

    /// Signs in, scripts `fault` on the revocation endpoint and signs out in a task.
    private func signOutTask(
        _ h: SimulatedSessionEnvironment, _ fault: SimulatedProviderFault
    ) async throws -> (StoredSession, Task<SessionCallResult<Void>, Never>) {
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.provider.script(fault, on: .revocation)
        let session = h.session
        return (signedIn, Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } })
    }

    @Test(
        "a transient revocation failure is retried until the provider confirms",
        arguments: [
            (SimulatedProviderFault.timeout, "timed out"),
            (.timeoutAfterProcessing, "timed out"),
            (.connectionFailure, "connection failed"),
            (.serverError(status: 502), "502 server_error"),
            (.rateLimited(retryAfterSeconds: 45), "429 rate_limited"),
        ])
    func revocationRetried(fault: SimulatedProviderFault, because: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, signOut) = try await signOutTask(h, fault)
        if fault == .timeout || fault == .timeoutAfterProcessing {
            #expect(await h.advanceToNextSleeper() == .seconds(30))
        }
        await h.clock.waitForSleepers(count: 1)
        await #expect(throws: SessionError.signOutInProgress) { try await h.session.validAccessToken() }
        #expect(h.store.record.session == signedIn)
        #expect(h.store.record.pendingOperation == .signOut)
        h.clock.advanceToNextDeadline()
        #expect(await signOut.value.error == nil)

        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == because)
        if case .rateLimited = fault {
            #expect(retry.afterSeconds == 45)
        } else {
            #expect((0...2).contains(retry.afterSeconds))
        }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .revoking, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.revoking, .signedOut, .revocationConfirmed),
            ])
        #expect(h.provider.requestCount(for: .revocation) == 2)
        #expect(h.store.record.isEmpty)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.provider.revokedChains.map(\.reason) == [.revocation])
    }

    @Test("a slow revocation holds the session in revoking, handing out no token, until it confirms")
    func revocationSlow() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, signOut) = try await signOutTask(h, .slow(.seconds(4)))
        await h.clock.waitForSleepers(count: 1)
        await #expect(throws: SessionError.signOutInProgress) { try await h.session.validAccessToken() }
        h.clock.advanceToNextDeadline()
        #expect(await signOut.value.error == nil)
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .signedOut, .revocationConfirmed),
            ])
        #expect(h.transitionTimes.suffix(2) == [0, 4])
        #expect(h.store.record.isEmpty)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
    }

    @Test("a 200 revocation answer with an unreadable body still confirms (RFC 7009 needs only the status)")
    func revocationMalformedBody() async throws {
        let h = try SimulatedSessionEnvironment()
        let (_, signOut) = try await signOutTask(h, .malformedJSON)
        #expect(await signOut.value.error == nil)
        #expect(h.steps.last == .move(.revoking, .signedOut, .revocationConfirmed))
        #expect(h.provider.requestCount(for: .revocation) == 1)
        #expect(h.store.record.isEmpty)
    }

    @Test(
        "a revocation the provider refuses for good ends in a local wipe, signedOutLocallyOnly",
        arguments: [
            (SimulatedProviderFault.invalidGrant, 400),
            (.unauthorized, 401),
            (.forbidden, 403),
            (.notFound, 404),
        ])
    func revocationRefused(fault: SimulatedProviderFault, status: Int) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, signOut) = try await signOutTask(h, fault)
        #expect(await signOut.value.error == nil)
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .revoking, .signOutRequested),
                .move(
                    .revoking, .signedOut,
                    .signedOutLocallyOnly(.provider(.http(status: status, error: nil, retryAfterSeconds: nil, excerpt: "")))),
            ])
        #expect(h.store.record.isEmpty)
        #expect(h.provider.requestCount(for: .revocation) == 1)
        // The provider was not told: the token is still good there, but the app no longer holds it.
        #expect(h.provider.isRefreshTokenActive(signedIn.refreshToken))
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
    }

    @Test("a provider without a revocation endpoint gets a local wipe and says so")
    func noRevocationEndpoint() async throws {
        let h = try SimulatedSessionEnvironment { $0.provider.revocationEndpoint = nil }
        await h.startRecording()
        try await h.signIn()
        try await h.session.signOut()
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .signedOut, .signedOutLocallyOnly(.unsupported(.revocation))),
            ])
        #expect(h.store.record.isEmpty)
        #expect(h.provider.requestCount(for: .revocation) == 0)
    }

    // MARK: Disconnect

    /// Signs in, scripts `fault` on `endpoint` and deletes the account in a task.
    private func deletionTask(
        _ h: SimulatedSessionEnvironment, _ fault: SimulatedProviderFault, on endpoint: SimulatedProviderEndpoint = .disconnect
    ) async throws -> (StoredSession, Task<SessionCallResult<Void>, Never>) {
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.provider.script(fault, on: endpoint)
        let session = h.session
        return (signedIn, Task { await SessionCallResult { () async throws(SessionError) in try await session.deleteAccount() } })
    }

    @Test("disconnect answered 404 counts as confirmed; the refresh token is still revoked")
    func disconnectNotFound() async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, deletion) = try await deletionTask(h, .notFound)
        #expect(await deletion.value.error == nil)
        await h.waitUntil("deferred revocation") { h.deferredRevocations == 1 }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .disconnecting, .accountDeletionRequested),
                .move(.disconnecting, .signedOut, .accountDeleted),
                .event(.deleteUserData(subject: "alice")),
                .event(.deferredRevocationCompleted),
            ])
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(h.store.record.isEmpty)
        #expect(h.store.device == nil)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.provider.revokedChains.map(\.reason) == [.revocation])
    }

    @Test(
        "a transient disconnect failure is retried; the device key is reused",
        arguments: [
            (SimulatedProviderFault.serverError(status: 503), "503 server_error"),
            (.timeout, "timed out"),
            (.connectionFailure, "connection failed"),
            (.rateLimited(retryAfterSeconds: 12), "429 rate_limited"),
        ])
    func disconnectRetried(fault: SimulatedProviderFault, because: String) async throws {
        let h = try SimulatedSessionEnvironment()
        let (signedIn, deletion) = try await deletionTask(h, fault)
        if fault == .timeout {
            #expect(await h.advanceToNextSleeper() == .seconds(30))
        }
        await h.clock.waitForSleepers(count: 1)
        await #expect(throws: SessionError.accountDeletionInProgress) { try await h.session.validAccessToken() }
        await #expect(throws: SessionError.accountDeletionInProgress) { try await h.session.signOut() }
        #expect(h.store.record.session == signedIn)
        #expect(h.store.record.pendingOperation == .deleteAccount)
        h.clock.advanceToNextDeadline()
        #expect(await deletion.value.error == nil)

        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == because)
        if case .rateLimited = fault {
            #expect(retry.afterSeconds == 12)
        } else {
            #expect((0...2).contains(retry.afterSeconds))
        }
        // The refresh token is revoked in the background; let that finish before reading the provider.
        await h.waitUntil("deferred revocation") { h.deferredRevocations == 1 }
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .disconnecting, .accountDeletionRequested),
                .move(.disconnecting, .disconnecting, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.disconnecting, .signedOut, .accountDeleted),
                .event(.deleteUserData(subject: "alice")),
                .event(.deferredRevocationCompleted),
            ])
        #expect(h.provider.requestCount(for: .disconnect) == 2)
        #expect(h.provider.requestCount(for: .deviceKeyExchange) == 1)
        #expect(h.provider.revokedChains.map(\.reason) == [.disconnect])
        #expect(h.store.device == nil)
    }

    @Test("a device-key exchange outage during deletion is retried like the disconnect itself")
    func deviceKeyExchangeRetried() async throws {
        let h = try SimulatedSessionEnvironment()
        let (_, deletion) = try await deletionTask(h, .serverError(status: 503), on: .deviceKeyExchange)
        await h.advanceToNextSleeper()
        #expect(await deletion.value.error == nil)
        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == "HTTP 503")
        // The refresh token is revoked in the background; let that finish before reading the provider.
        await h.waitUntil("deferred revocation") { h.deferredRevocations == 1 }
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .disconnecting, .accountDeletionRequested),
                .move(.disconnecting, .disconnecting, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.disconnecting, .signedOut, .accountDeleted),
                .event(.deleteUserData(subject: "alice")),
                .event(.deferredRevocationCompleted),
            ])
        #expect(h.provider.requestCount(for: .deviceKeyExchange) == 2)
        #expect(h.provider.requestCount(for: .disconnect) == 1)
        #expect(h.provider.revokedChains.map(\.reason) == [.disconnect])
    }

    @Test("a provider without app disconnect: deletion is unavailable, the session and credentials stay")
    func noDisconnectEndpoint() async throws {
        let h = try SimulatedSessionEnvironment { $0.provider.disconnectEndpoint = nil }
        await h.startRecording()
        let signedIn = try await h.signIn()
        await #expect(throws: SessionError.unsupported(.accountDeletion)) { try await h.session.deleteAccount() }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .disconnecting, .accountDeletionRequested),
                .move(.disconnecting, .active, .accountDeletionUnavailable(.accountDeletion)),
            ])
        #expect(h.store.record.session == signedIn)
        #expect(h.store.record.pendingOperation == nil)
        #expect(h.provider.requestCount(for: .disconnect) == 0)
        #expect(try await h.session.validAccessToken().secret == signedIn.accessToken)
    }

    @Test("a journaled deletion refused after a relaunch: the account stays and the session is restored")
    func resumedDeletionRefused() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        var record = h.store.record
        record.pendingOperation = .deleteAccount
        h.store.replaceRecord(record)
        h.provider.script(.forbidden, on: .disconnect)
        let relaunched = await h.relaunch()

        // The launch does not wait for the provider: the refusal arrives as a transition.
        #expect(try await relaunched.restore() == .disconnecting)
        await h.waitUntil("restored") { relaunched.stage == .active }
        #expect(
            h.steps == [
                .move(.signedOut, .disconnecting, .resumingPendingOperation),
                .move(.disconnecting, .refreshing, .accountDeletionRefused(status: 403)),
                .move(.refreshing, .active, .verified(subject: "alice")),
            ])
        let stored = try #require(h.store.record.session)
        #expect(h.store.record.pendingOperation == nil)
        #expect(stored.rotation == 1)
        #expect(h.provider.isRefreshTokenActive(stored.refreshToken))
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.provider.revokedChains.isEmpty)
        #expect(try await relaunched.validAccessToken().secret == stored.accessToken)
    }

    // MARK: Signing keys

    @Test("a key-set outage during sign-in verification fails the sign-in; the unverified refresh token is revoked")
    func keySetOutageAtSignIn() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.provider.script(.serverError(status: 503), on: .jwks)
        h.presenter.enqueue(.approve(subject: "alice"))
        let result = await SessionCallResult { () async throws(SessionError) in try await h.session.signIn() }

        guard case .provider(let error)? = result.error?.kind else {
            Issue.record("expected a provider error, got \(result)")
            return
        }
        #expect(error.status == 503)
        #expect(error.summary == "503 server_error")
        await h.waitUntil("the unverified refresh token revoked") { h.deferredRevocations == 1 }
        #expect(
            h.steps == [
                .move(.signedOut, .handoff, .signInRequested),
                .move(.handoff, .verifying, .callbackReceived),
                .move(.verifying, .signedOut, .exchangeFailed(.provider(error))),
                .event(.deferredRevocationCompleted),
            ])
        #expect(h.journal.savedRecords.allSatisfy { $0.session == nil })
        #expect(h.provider.activeGrantCount == 0)
    }

    @Test("a key-set outage while verifying a refresh is transient: retried with the rotated token, then active")
    func keySetOutageDuringRefresh() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        // An hour on, the cached key set is stale and the access token due: both are fetched again.
        h.clock.advance(by: .seconds(3600))
        h.provider.script(.serverError(status: 503), on: .jwks)
        let session = h.session
        let caller = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
        await h.advanceToNextSleeper()
        let result = await caller.value

        #expect(h.provider.requestLog.filter { $0.endpoint == .jwks }.map(\.status).prefix(2) == [200, 503])
        #expect(h.provider.requestLog.filter { $0.endpoint == .jwks }.map(\.status) == [200, 503, 200])
        let retry = try #require(h.retries.first)
        #expect(TransitionReason.phrase(retry.because) == "503 server_error")
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .refreshing, .tokenDue(inSeconds: 0, callers: 1)),
                .move(.refreshing, .refreshing, .retrying(attempt: 1, afterSeconds: retry.afterSeconds, because: retry.because)),
                .move(.refreshing, .active, .refreshed(callers: 1)),
            ])
        let token = try #require(result.value)
        let stored = try #require(h.store.record.session)
        #expect(token.secret == stored.accessToken)
        #expect(stored.rotation == 1)
        #expect(h.provider.isRefreshTokenActive(stored.refreshToken))
        // No refresh token is left active at the provider without being the stored current one.
        let current = h.store.record.session?.refreshToken
        #expect(h.issued.refreshTokens.allSatisfy { $0 == current || !h.provider.isRefreshTokenActive($0) })
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
    }
}
