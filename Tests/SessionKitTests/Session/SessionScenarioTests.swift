import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// The walkthrough's scenarios as tests: each asserts the exact sequence of published events, the
/// provider's request counts and what the store holds.
@Suite("Session scenarios")
struct SessionScenarioTests {
    typealias Step = SimulatedSessionEnvironment.Step

    @Test("happy path: sign in → active → refresh → sign out")
    func happyPath() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        #expect(try await h.session.validAccessToken().secret == signedIn.accessToken)
        #expect(h.session.identity?.subject == "alice")

        h.clock.advance(by: .seconds(3540))
        let refreshed = try await h.session.validAccessToken()
        let stored = try #require(h.store.record.session)
        #expect(refreshed.secret != signedIn.accessToken)
        #expect(stored.accessToken == refreshed.secret)
        #expect(stored.refreshToken != signedIn.refreshToken)
        #expect(stored.pendingRefreshToken == nil)
        #expect(stored.rotation == 1)
        #expect(h.provider.isRefreshTokenActive(stored.refreshToken))
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        // Fresh again: handed out without another request.
        #expect(try await h.session.validAccessToken() == refreshed)
        #expect(h.provider.tokenRequestCount == 2)

        try await h.session.signOut()
        #expect(
            h.steps == Step.signIn() + Step.refresh() + [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .signedOut, .revocationConfirmed),
            ])
        #expect(h.transitionTimes == [0, 0, 0, 3540, 3540, 3540, 3540])
        #expect(h.session.stage == .signedOut)
        #expect(h.session.identity == nil)
        #expect(h.provider.requestCount(grantType: "authorization_code") == 1)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.provider.requestCount(for: .revocation) == 1)
        #expect(h.provider.requestCount(for: .jwks) == 1)
        #expect(h.provider.revokedChains.map(\.reason) == [.revocation])
        #expect(h.store.record.isEmpty)
        // Server first: the intent was journaled with the credentials still present, then wiped.
        let saves = h.journal.savedRecords
        #expect(saves.suffix(2).map(\.pendingOperation) == [.signOut, nil])
        #expect(saves.suffix(2).first?.session == stored)
        #expect(h.issued.refreshTokens.count == 2)
        #expect(h.issued.refreshTokens.allSatisfy { !h.provider.isRefreshTokenActive($0) })
        #expect(h.issued.accessTokens.allSatisfy { !h.provider.isAccessTokenActive($0) })
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
    }

    @Test("concurrent refresh: 1 000 callers, one request, one token")
    func concurrentRefresh() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.clock.advance(by: .seconds(3540))
        h.provider.script(.slow(.milliseconds(250)), on: .token)
        let session = h.session
        let callers = Task {
            await withTaskGroup(of: SessionCallResult<AccessToken>.self) { group in
                for _ in 0..<1000 {
                    group.addTask { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        await h.clock.waitForSleepers(count: 1)
        await h.waitUntil("1 000 callers wait") { session.waitingCallerCount == 1000 }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        h.clock.advanceToNextDeadline()
        let results = await callers.value

        #expect(results.count == 1000)
        #expect(results.allSatisfy { $0.value != nil })
        let tokens = Set(results.compactMap { $0.value?.secret })
        #expect(tokens.count == 1)
        #expect(tokens.first == h.store.record.session?.accessToken)
        #expect(tokens.first != signedIn.accessToken)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.provider.tokenRequestCount == 2)
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: 1000)),
            ])
        #expect(h.transitionTimes == [0, 0, 0, 3540, 3540.25])
        #expect(session.waitingCallerCount == 0)
    }

    @Test(
        "tampered refresh: the session ends signed out and no rejected token surfaces",
        arguments: [
            (SimulatedProviderFault.IDTokenTampering.badSignature, "bad_signature"),
            (.subject("mallory"), "sub_mismatch"),
            (.audience("another-client"), "aud_mismatch"),
        ])
    func tamperedRefresh(tampering: SimulatedProviderFault.IDTokenTampering, code: String) async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.clock.advance(by: .seconds(3540))
        h.provider.script(.tamperedIDToken(tampering), on: .token)

        let result = await SessionCallResult { () async throws(SessionError) in try await h.session.validAccessToken() }
        guard case .verificationFailed(let error)? = result.error?.kind else {
            Issue.record("expected verificationFailed, got \(result)")
            return
        }
        #expect(error.code == code)
        #expect(h.session.stage == .signedOut)
        #expect(h.store.record.session == nil)

        // The second token response is the rejected one.
        #expect(h.issued.accessTokens.count == 2)
        let rejectedAccess = try #require(h.issued.accessTokens.last)
        let rejectedRefresh = try #require(h.issued.refreshTokens.last)
        let rejectedID = try #require(h.issued.idTokens.last)
        #expect(rejectedRefresh != signedIn.refreshToken)
        // Never held as current. The cached keys judged the response at once, so the rejected rotated
        // token went durably, in one write, straight to the revocation queue.
        for record in h.journal.savedRecords {
            #expect(record.session?.accessToken != rejectedAccess)
            #expect(record.session?.refreshToken != rejectedRefresh)
            #expect(record.session?.idToken != rejectedID)
        }
        #expect(h.journal.savedRecords.contains { $0.session == nil && $0.pendingRevocations.contains(rejectedRefresh) })
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
        await #expect(throws: SessionError.notSignedIn) { try await h.session.refresh() }

        // Both refresh tokens the response touched are revoked in the background.
        await h.waitUntil("two deferred revocations") { h.deferredRevocations == 2 }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .refreshing, .tokenDue(inSeconds: 60, callers: 1)),
                .move(.refreshing, .signedOut, .verificationFailed(error)),
                .event(.deferredRevocationCompleted),
                .event(.deferredRevocationCompleted),
            ])
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(h.store.record.isEmpty)
        #expect(h.issued.refreshTokens.allSatisfy { !h.provider.isRefreshTokenActive($0) })
        #expect(!h.provider.isAccessTokenActive(rejectedAccess))
        #expect(h.provider.revokedChains.map(\.reason) == [.revocation])
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(h.provider.requestCount(for: .revocation) == 2)
    }

    @Test("outage sign-out: 503, 503, 429 Retry-After 30 → retried at the backoff, then confirmed")
    func outageSignOut() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        h.provider.script(.serverError(status: 503), on: .revocation, times: 2)
        h.provider.script(.rateLimited(retryAfterSeconds: 30), on: .revocation)

        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await h.session.signOut() } }
        for _ in 0..<3 {
            await h.clock.waitForSleepers(count: 1)
            // Until the provider confirms: no token, credentials kept, intent journaled.
            await #expect(throws: SessionError.signOutInProgress) { try await h.session.validAccessToken() }
            #expect(h.store.record.pendingOperation == .signOut)
            #expect(h.store.record.session == signedIn)
            h.clock.advanceToNextDeadline()
        }
        #expect(await signOut.value.error == nil)

        let retries = h.retries
        #expect(retries.map(\.attempt) == [1, 2, 3])
        #expect(retries.map { TransitionReason.phrase($0.because) } == ["503 server_error", "503 server_error", "429 rate_limited"])
        // Full jitter under the server-first caps (2 s, then 4 s); Retry-After above the 8 s cap wins.
        #expect((0...2).contains(retries[0].afterSeconds))
        #expect((0...4).contains(retries[1].afterSeconds))
        #expect(retries[2].afterSeconds == 30)
        let sent = h.provider.requestLog.filter { $0.endpoint == .revocation }.map { $0.receivedAt.timeIntervalSince(h.epoch) }
        let expected = [
            0, retries[0].afterSeconds, retries[0].afterSeconds + retries[1].afterSeconds,
            retries[0].afterSeconds + retries[1].afterSeconds + 30,
        ]
        #expect(sent.count == 4)
        #expect(zip(sent, expected).allSatisfy { abs($0 - $1) < 1e-6 })
        #expect(h.provider.requestLog.filter { $0.endpoint == .revocation }.map(\.status) == [503, 503, 429, 200])

        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .revoking, .signOutRequested),
                .move(.revoking, .revoking, .retrying(attempt: 1, afterSeconds: retries[0].afterSeconds, because: retries[0].because)),
                .move(.revoking, .revoking, .retrying(attempt: 2, afterSeconds: retries[1].afterSeconds, because: retries[1].because)),
                .move(.revoking, .revoking, .retrying(attempt: 3, afterSeconds: 30, because: retries[2].because)),
                .move(.revoking, .signedOut, .revocationConfirmed),
            ])
        #expect(h.store.record.isEmpty)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.provider.revokedChains.map(\.reason) == [.revocation])
    }

    @Test("outage sign-out: every backoff stays under its cap, up to the 300 s ceiling")
    func outageBackoffCaps() async throws {
        let h = try SimulatedSessionEnvironment(seed: 7)
        await h.startRecording()
        try await h.signIn()
        h.provider.script(.timeout, on: .revocation, times: 10)
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await h.session.signOut() } }
        // Each attempt: the provider's 30 s timeout, then the backoff timer.
        for _ in 0..<20 { await h.advanceToNextSleeper() }
        #expect(await signOut.value.error == nil)

        let retries = h.retries
        #expect(retries.map(\.attempt) == Array(1...10))
        #expect(retries.allSatisfy { $0.because == .provider(.transport(.timedOut)) })
        for retry in retries {
            let cap = min(300, 2 * pow(2, Double(retry.attempt - 1)))
            #expect((0...cap).contains(retry.afterSeconds), "attempt \(retry.attempt) waited \(retry.afterSeconds) s, cap \(cap) s")
        }
        // Jitter is real: not every delay sits at the cap or at zero.
        #expect(Set(retries.map(\.afterSeconds)).count > 5)
        #expect(h.provider.requestCount(for: .revocation) == 11)
        #expect(h.steps.last == .move(.revoking, .signedOut, .revocationConfirmed))
        #expect(h.store.record.isEmpty)
        let total = 11.0 * 30 + retries.map(\.afterSeconds).reduce(0, +)
        #expect(abs(h.elapsed - (total - 30)) < 1e-6)
    }

    @Test("account deletion: disconnect, wipe, device credential reset, delete-data event")
    func accountDeletion() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        try await h.session.deleteAccount()
        #expect(h.session.stage == .signedOut)
        #expect(h.store.record.session == nil)
        #expect(h.store.record.pendingOperation == nil)
        // The journal held the intent, with the credentials, before anything was wiped.
        let journaled = try #require(h.journal.savedRecords.firstIndex { $0.pendingOperation == .deleteAccount })
        #expect(h.journal.savedRecords[journaled].session == signedIn)

        // The refresh token is also revoked, in the background, after the delete-data event.
        await h.waitUntil("deferred revocation") { h.deferredRevocations == 1 }
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .disconnecting, .accountDeletionRequested),
                .move(.disconnecting, .signedOut, .accountDeleted),
                .event(.deleteUserData(subject: "alice")),
                .event(.deferredRevocationCompleted),
            ])
        #expect(h.store.record.isEmpty)
        // The device was registered for the disconnect, then its credential reset.
        #expect(h.provider.registeredDeviceCount == 1)
        #expect(h.provider.requestCount(for: .deviceKeyExchange) == 1)
        #expect(h.provider.requestCount(for: .disconnect) == 1)
        #expect(h.provider.requestCount(for: .revocation) == 1)
        #expect(h.store.device == nil)
        #expect(h.store.count(of: .removeDevice) == 1)
        #expect(h.provider.revokedChains.map(\.reason) == [.disconnect])
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        await #expect(throws: SessionError.notSignedIn) { try await h.session.validAccessToken() }
    }

    @Test(
        "account deletion refused: back to active, credentials and store unchanged, journal cleared",
        arguments: [(SimulatedProviderFault.unauthorized, 401), (.forbidden, 403)])
    func deletionRefused(fault: SimulatedProviderFault, status: Int) async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        let before = h.store.record
        h.provider.script(fault, on: .disconnect)

        await #expect(throws: SessionError.accountDeletionRefused(status: status)) { try await h.session.deleteAccount() }
        #expect(
            h.steps == Step.signIn() + [
                .move(.active, .disconnecting, .accountDeletionRequested),
                .move(.disconnecting, .active, .accountDeletionRefused(status: status)),
            ])
        #expect(h.session.stage == .active)
        #expect(h.store.record == before)
        #expect(h.store.record.pendingOperation == nil)
        #expect(h.journal.savedRecords.contains { $0.pendingOperation == .deleteAccount })
        #expect(try await h.session.validAccessToken().secret == signedIn.accessToken)
        #expect(h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.provider.revokedChains.isEmpty)
        #expect(h.provider.requestCount(for: .disconnect) == 1)
        #expect(h.provider.requestCount(for: .revocation) == 0)
        #expect(h.deferredRevocations == 0)
    }

    @Test("key rotation: an unknown kid makes the session fetch the keys again")
    func keyRotation() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let signedIn = try await h.signIn()
        #expect(h.provider.requestCount(for: .jwks) == 1)
        let newKeyID = try h.provider.rotateSigningKey(retainPreviousFor: .zero)
        #expect(h.provider.publishedKeyIDs == [newKeyID])
        h.clock.advance(by: .seconds(3540))

        let token = try await h.session.validAccessToken()
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(token.secret != signedIn.accessToken)
        #expect(h.provider.requestCount(for: .jwks) == 2)
        #expect(h.steps == Step.signIn() + Step.refresh())
        let header = try #require(h.issued.idTokens.last?.value.split(separator: ".").first)
        let decoded = try Base64URL.decode(header)
        #expect(String(decoding: decoded, as: UTF8.self).contains("\"\(newKeyID)\""))

        // The next refresh finds the new key in the cache: no third fetch.
        h.clock.advance(by: .seconds(3540))
        _ = try await h.session.validAccessToken()
        #expect(h.provider.requestCount(for: .jwks) == 2)
    }

    @Test("handoff timeout: nobody answers within 300 s")
    func handoffTimeout() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        h.presenter.enqueue(.neverAnswer)
        let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await h.session.signIn() } }
        await h.presenter.waitForSuspendedPresentations(count: 1)
        await h.clock.waitForSleepers(count: 1)
        h.clock.advance(by: .seconds(299))
        #expect(h.clock.sleeperCount == 1)
        #expect(h.session.stage == .handoff)
        h.clock.advance(by: .seconds(1))

        #expect(await signIn.value.error == .handoffTimedOut)
        #expect(h.steps == [.move(.signedOut, .handoff, .signInRequested), .move(.handoff, .signedOut, .handoffTimedOut)])
        #expect(h.transitionTimes == [0, 300])
        // The presenter is dismissed, nothing reached the provider, nothing was stored.
        await h.waitUntil("presentation dismissed") { h.presenter.suspendedPresentationCount == 0 }
        #expect(h.provider.tokenRequestCount == 0)
        #expect(h.store.record.isEmpty)
        #expect(h.journal.savedRecords.isEmpty)
        // A new sign-in starts afresh.
        try await h.signIn()
        #expect(h.session.stage == .active)
    }

    @Test("restore: a stored session whose token is not due signs in without any request, launch after launch")
    func restore() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        let requestsBefore = h.provider.requestLog.count
        h.clock.advance(by: .seconds(600))
        for _ in 0..<5 {
            let relaunched = await h.relaunch()
            #expect(try await relaunched.restore() == .active)
            #expect(try await relaunched.validAccessToken().secret == signedIn.accessToken)
            #expect(relaunched.identity?.subject == "alice")
            // A second restore on a running session changes nothing.
            #expect(try await relaunched.restore() == .active)
        }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 0)
        #expect(h.provider.requestLog.count == requestsBefore)
        #expect(h.steps == Array(repeating: .move(.signedOut, .active, .restored(subject: "alice")), count: 5))
        #expect(h.store.record.session == signedIn)
    }

    @Test("restore with a due token: signed in at once, refreshed in the background, verified before use")
    func restoreDue() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        h.clock.advance(by: .seconds(3550))
        let relaunched = await h.relaunch()
        #expect(try await relaunched.restore() == .refreshing)
        let token = try await relaunched.validAccessToken()
        let stored = try #require(h.store.record.session)
        #expect(token.secret == stored.accessToken)
        #expect(token.secret != signedIn.accessToken)
        #expect(stored.rotation == 1)
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
        #expect(
            h.steps == [
                .move(.signedOut, .refreshing, .restoredDue(subject: "alice", inSeconds: 50)),
                .move(.refreshing, .active, .refreshed(callers: 1)),
            ])
    }

    @Test("offline at launch: still signed in, the valid token handed out, a transient error past expiry, recovery without sign-in")
    func restoreOffline() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        h.clock.advance(by: .seconds(3570))
        h.provider.script(.connectionFailure, on: .token, times: 3)
        let relaunched = await h.relaunch()
        // Launch does not wait for the network.
        #expect(try await relaunched.restore() == .refreshing)
        #expect(relaunched.identity?.subject == "alice")
        // Inside the lead time the current token is handed out while the refresh backs off.
        await h.waitUntil("backing off") { h.retries.count == 1 }
        #expect(try await relaunched.validAccessToken().secret == signedIn.accessToken)
        // Past its expiry, callers wait for the next attempt and get a transient error, not "signed out".
        await h.clock.waitForSleepers(count: 1)
        h.clock.advance(by: .seconds(31))
        await h.waitUntil("the second attempt failed") { h.retries.count == 2 }
        let caller = Task { await SessionCallResult { () async throws(SessionError) in try await relaunched.validAccessToken() } }
        await h.waitUntil("the caller waits") { relaunched.waitingCallerCount == 1 }
        await h.advanceToNextSleeper()
        let offline = await caller.value
        #expect(offline.error?.isTransient == true)
        #expect(offline.error?.requiresSignIn == false)
        #expect(relaunched.stage == .active)
        #expect(h.store.record.session == signedIn)
        // The provider is back: the next call refreshes, no new sign-in.
        let token = try await relaunched.validAccessToken()
        #expect(token.secret == h.store.record.session?.accessToken)
        #expect(token.secret != signedIn.accessToken)
        #expect(h.presenter.presentedRequests.count == 1)
    }

    @Test("offline at launch with requests that time out: restore returns at once")
    func restoreWithTimeouts() async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        h.clock.advance(by: .seconds(3570))
        h.provider.script(.timeout, on: .token, times: 3)
        let relaunched = await h.relaunch()
        let before = h.clock.now
        #expect(try await relaunched.restore() == .refreshing)
        #expect(h.clock.now == before)
    }

    @Test("restore with a refresh token the provider refuses: signed out once, the stored session wiped, no loop")
    func restoreRejected() async throws {
        let h = try SimulatedSessionEnvironment()
        try await h.signIn()
        h.clock.advance(by: .seconds(3570))
        h.provider.revokeAllGrants(of: "alice")
        let relaunched = await h.relaunch()
        #expect(try await relaunched.restore() == .refreshing)
        await h.waitUntil("signed out") { relaunched.stage == .signedOut }
        #expect(
            h.steps == [
                .move(.signedOut, .refreshing, .restoredDue(subject: "alice", inSeconds: 30)),
                .move(.refreshing, .signedOut, .refreshRejected(h.refusedRefreshAnswer)),
            ])
        #expect(h.refusedRefreshAnswer?.status == 400 && h.refusedRefreshAnswer?.oauthError == "invalid_grant")
        #expect(h.store.record.session == nil)
        await #expect(throws: SessionError.notSignedIn) { try await relaunched.validAccessToken() }
        #expect(h.provider.requestCount(grantType: "refresh_token") == 1)
    }

    @Test("two sessions on one store with different users: the other account is never adopted nor reported as a merge")
    func oneAccountPerStore() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        _ = try await h.signIn(as: "alice")
        // Another session on the same store signs bob in (an extension, another process).
        let other = await h.relaunch()
        h.presenter.enqueue(.approve(subject: "bob"))
        try await other.signIn()
        let stored = try #require(h.store.record.session)
        #expect(stored.subject == "bob")
        // Alice's session refreshes and finds bob's session in the store.
        h.clock.advance(by: .seconds(3600))
        await #expect(throws: SessionError.anotherAccountInStore) { try await h.session.validAccessToken() }
        #expect(h.session.stage == .signedOut)
        #expect(!h.events.contains { if case .subjectChanged = $0 { true } else { false } })
        // Bob's session is left as it was.
        #expect(h.store.record.session == stored)
    }

    @Test("a store written for another client is not restored, and not touched")
    func restoreForeign() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        var foreign = signedIn
        foreign.audience = ["another-client"]
        h.store.replaceRecord(CredentialRecord(session: foreign))
        let requestsBefore = h.provider.requestLog.count
        let relaunched = await h.relaunch()
        await #expect(throws: SessionError.storedSessionForeign(.client)) { try await relaunched.restore() }
        #expect(relaunched.stage == .signedOut)
        #expect(h.store.record.session == foreign)
        #expect(h.provider.requestLog.count == requestsBefore)
    }

    @Test("restore with nothing stored stays signed out without a request")
    func restoreNothing() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        #expect(try await h.session.restore() == .signedOut)
        #expect(h.steps == [.move(.signedOut, .signedOut, .nothingStored)])
        #expect(h.provider.requestLog.isEmpty)
    }

    @Test("restore resumes a journaled sign-out")
    func restoreResumesSignOut() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        var record = h.store.record
        record.pendingOperation = .signOut
        h.store.replaceRecord(record)
        let relaunched = await h.relaunch()

        // At once, before the provider was asked; the sign-out ends in the background.
        #expect(try await relaunched.restore() == .revoking)
        await h.waitUntil("signed out") { relaunched.stage == .signedOut }
        #expect(
            h.steps == [
                .move(.signedOut, .revoking, .resumingPendingOperation),
                .move(.revoking, .signedOut, .revocationConfirmed),
            ])
        #expect(h.store.record.isEmpty)
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
        #expect(h.provider.requestCount(grantType: "refresh_token") == 0)
    }

    @Test("restore resumes a journaled account deletion")
    func restoreResumesDeletion() async throws {
        let h = try SimulatedSessionEnvironment()
        let signedIn = try await h.signIn()
        var record = h.store.record
        record.pendingOperation = .deleteAccount
        h.store.replaceRecord(record)
        let relaunched = await h.relaunch()

        #expect(try await relaunched.restore() == .disconnecting)
        await h.waitUntil("signed out") { relaunched.stage == .signedOut }
        #expect(h.store.record.session == nil)
        #expect(h.store.record.pendingOperation == nil)
        await h.waitUntil("deferred revocation") { h.deferredRevocations == 1 }
        await h.waitUntil("revocation queue drained") { h.store.record.pendingRevocations.isEmpty }
        #expect(
            h.steps == [
                .move(.signedOut, .disconnecting, .resumingPendingOperation),
                .move(.disconnecting, .signedOut, .accountDeleted),
                .event(.deleteUserData(subject: "alice")),
                .event(.deferredRevocationCompleted),
            ])
        #expect(h.store.device == nil)
        #expect(h.provider.revokedChains.map(\.reason) == [.disconnect])
        #expect(!h.provider.isRefreshTokenActive(signedIn.refreshToken))
    }
}
